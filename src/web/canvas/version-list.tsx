import { formatSize } from '../../lib/format'
import { ListTable } from '../pages/list-table'
import { Ago } from '../pages/when'

export type VersionRow = { version: number; size: number; created_at: string }

/** A canvas's versions, newest first, each to view; a text canvas's also to compare. */
export function VersionList(props: {
  canvasId: string
  versions: VersionRow[]
  current: number
  shown: number
  textual: boolean
}) {
  const { canvasId, versions } = props
  return (
    <>
      <ListTable columns={['Version', 'Published', 'Size']} actions>
        {versions.map((v) => (
          <tr id={`version-${v.version}`}>
            <td class="primary-cell">
              v{v.version} {v.version === props.current && <span class="chip">current</span>}
              {v.version === props.shown && v.version !== props.current && (
                <span class="chip">shown</span>
              )}
            </td>
            <td data-label="Published" class="nowrap">
              <Ago at={v.created_at} />
            </td>
            <td data-label="Size">{formatSize(v.size)}</td>
            <td class="end">
              <div class="actions">
                <a class="btn small" href={`/c/${canvasId}?v=${v.version}`}>
                  View
                </a>
                {props.textual && v.version > 1 && (
                  <a
                    class="btn small"
                    href={`/c/${canvasId}/diff?from=${v.version - 1}&to=${v.version}`}
                  >
                    Changes
                  </a>
                )}
              </div>
            </td>
          </tr>
        ))}
      </ListTable>
      {props.current > versions.length && (
        <p class="muted">
          The latest {versions.length} of {props.current} versions. An older one opens by its
          number: <code>/c/{canvasId}?v=1</code>.
        </p>
      )}
      {props.textual && versions.length > 1 && (
        <form class="row spaced" method="get" action={`/c/${canvasId}/diff`}>
          <div>
            <label for="diff-from">Compare</label>
            <VersionSelect id="diff-from" name="from" versions={versions} selected={versions[1]} />
          </div>
          <div>
            <label for="diff-to">with</label>
            <VersionSelect id="diff-to" name="to" versions={versions} selected={versions[0]} />
          </div>
          <button type="submit">Show changes</button>
        </form>
      )}
    </>
  )
}

function VersionSelect(props: {
  id: string
  name: string
  versions: VersionRow[]
  selected: VersionRow
}) {
  return (
    <select id={props.id} name={props.name}>
      {props.versions.map((v) => (
        <option value={String(v.version)} selected={v === props.selected}>
          v{v.version}
        </option>
      ))}
    </select>
  )
}
