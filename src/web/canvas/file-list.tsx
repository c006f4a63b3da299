import { formatSize } from '../../lib/format'
import { ListTable } from '../pages/list-table'

export type FileRow = { path: string; size: number }

/**
 * The files of a site's version, by path, each opening on its own in a new tab (from the content
 * origin, sandboxed like the frame); `main` is the one the frame shows first.
 */
export function FileList(props: {
  files: FileRow[]
  main: string
  siteUrl: (path: string) => string
}) {
  return (
    <ListTable columns={['File', 'Size']} class="files">
      {props.files.map((f) => (
        <tr>
          <td class="primary-cell">
            <a href={props.siteUrl(f.path)} target="_blank" rel="noopener">
              {f.path}
            </a>{' '}
            {f.path === props.main && <span class="chip">main</span>}
          </td>
          <td data-label="Size">{formatSize(f.size)}</td>
        </tr>
      ))}
    </ListTable>
  )
}
