import { AppError } from '../../lib/errors'
import { itemListProblem } from '../../lib/item-paths'

// What a version holds: one file, or the files of a site by path. The paths' own rules (relative,
// no `..`, 512 bytes) are the request schema's (schema/requests.ts `itemPath`); the rules that
// need the whole list are applied here, so the API and MCP refuse the same lists with the same
// words. Both are defined once, in lib/item-paths.ts, which the CLI checks with too.

export type Item = { path: string; file_id: string }

export type ContentInput = {
  file_id?: string
  items?: Item[]
  main?: string
}

/**
 * The items of a new version and its main item's path. A single `file_id` is one item whose path
 * is `index.<ext>` (`null` here: an update takes the canvas's ext in SQL). Null when the input
 * names no content (an update of title or visibility only).
 */
export type ContentPlan = { items: { path: string | null; file_id: string }[]; main: string | null }

export function planContent(input: ContentInput, maxItems: number): ContentPlan | null {
  if (input.items === undefined) {
    if (input.main !== undefined) {
      throw new AppError('invalid_request', 'main: only goes with items')
    }
    if (input.file_id === undefined) return null
    return { items: [{ path: null, file_id: input.file_id }], main: null }
  }
  if (input.file_id !== undefined) {
    throw new AppError('invalid_request', 'file_id: send either file_id or items, not both')
  }
  const items = input.items
  if (items.length > maxItems) {
    throw new AppError(
      'invalid_request',
      `items: at most ${maxItems} files per version, got ${items.length}`,
    )
  }
  checkPaths(items)
  const main = input.main ?? defaultMain(items)
  if (!items.some((item) => item.path === main)) {
    throw new AppError('invalid_request', `main: '${main}' is not the path of any item`)
  }
  return { items, main }
}

/** `index.html` when the site has one at its top, else the first item. */
function defaultMain(items: Item[]): string {
  return items.some((item) => item.path === 'index.html') ? 'index.html' : items[0].path
}

/** A list whose paths cannot all be written out as one folder is refused, naming the item. */
function checkPaths(items: Item[]) {
  const problem = itemListProblem(items.map((item) => item.path))
  if (problem) {
    throw new AppError('invalid_request', `items.${problem.index}.path: ${problem.message}`)
  }
}

/** The extension of a path's last segment (`img/chart.SVG` → `svg`), or null when it has none. */
export function pathExt(path: string): string | null {
  const match = /\.([A-Za-z0-9]{1,16})$/.exec(path.slice(path.lastIndexOf('/') + 1))
  return match ? match[1].toLowerCase() : null
}

/** A path's last segment: the name its file is downloaded under. */
export const baseName = (path: string) => path.slice(path.lastIndexOf('/') + 1)
