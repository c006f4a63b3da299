import { LONE_SURROGATE } from './content-types'

// The rules a site's item paths follow: one definition for the API's request schema, its list
// rules (domain/canvases/site-items.ts) and the CLI, which checks a folder before uploading it and an
// archive before writing it out. A path is a URL path and a file path alike: it must write to disk
// as one file under the site's folder on every common system, Windows and macOS included.

/** The most bytes of UTF-8 an item's path may take. */
export const MAX_PATH_BYTES = 512

const utf8Length = (s: string) => new TextEncoder().encode(s).byteLength

// A name that displays as another (`invoice\u202Etxt.exe` reads as `invoiceexe.txt`).
const BIDI = /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/

// Names Windows gives to devices, whatever follows the first dot (`nul.txt` is the device too),
// superscript digits included (Microsoft's "Naming Files, Paths, and Namespaces").
const DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i

/**
 * What makes a string no path of any item, new or stored: the shape every version's items have
 * always had. A route that looks an item up by path answers 404 for these without looking.
 */
export function pathShapeProblem(path: string): string | null {
  if (path === '') return 'must not be empty'
  if (utf8Length(path) > MAX_PATH_BYTES) return `must be at most ${MAX_PATH_BYTES} bytes`
  if (/\p{Cc}/u.test(path)) return 'must not contain control characters'
  if (BIDI.test(path)) return 'must not contain bidirectional controls'
  if (path.search(LONE_SURROGATE) !== -1) {
    return 'must not contain unpaired surrogates (half of a character)'
  }
  if (path.includes('\\')) return 'must separate folders with /, not \\'
  if (path.startsWith('/')) return 'must be relative (no leading /)'
  if (!path.split('/').every((part) => part !== '' && part !== '.' && part !== '..')) {
    return 'must not have an empty, . or .. segment'
  }
  return null
}

/**
 * What is wrong with the path of a new item, in the words of the API's 400, or null. Beyond the
 * shape: names Windows cannot create (a drive or stream `:`, a device, a trailing dot or space,
 * which it would silently drop and so merge two names).
 */
export function itemPathProblem(path: string): string | null {
  const shape = pathShapeProblem(path)
  if (shape) return shape
  if (path.includes(':')) return 'must not contain : (a drive or a stream on Windows)'
  const parts = path.split('/')
  if (parts.some((part) => /[. ]$/.test(part))) {
    return 'must not have a segment ending in a dot or a space'
  }
  if (parts.some((part) => DEVICE.test(part.split('.')[0].trimEnd()))) {
    return 'must not have a segment named as a Windows device (con, prn, aux, nul, com1, lpt1...)'
  }
  return null
}

/**
 * One spelling for the names macOS and Windows take to be the same: Unicode NFC (an `é` typed as
 * `e` and an accent is `é`) and case (folded both ways, so `ß`, `ẞ` and `SS`, `ς` and `σ` meet).
 */
export const foldedPath = (path: string) =>
  path.normalize('NFC').toUpperCase().toLowerCase().normalize('NFC')

export type ListProblem = { index: number; message: string }

const quoted = (path: string) => `'${path}'`

/**
 * The first item of a list of valid paths that cannot sit beside the others, by index, or null:
 * a path given twice, or twice once case and normalization are set aside (`A.html` and `a.html`),
 * or a file that is also a folder of another item (`a` beside `a/b`, or `A` beside `a/b`). A site
 * must write out as a folder again, one file per path, on any system.
 */
export function itemListProblem(paths: string[], quote = quoted): ListProblem | null {
  const files = new Map<string, string>()
  for (const [index, path] of paths.entries()) {
    const folded = foldedPath(path)
    const other = files.get(folded)
    if (other === path) return { index, message: `${quote(path)} is given more than once` }
    if (other !== undefined) {
      return { index, message: `${quote(path)} and ${quote(other)} ${ONE_FILE}` }
    }
    files.set(folded, path)
  }
  // Each folder, folded, with a path that has it.
  const folders = new Map<string, string>()
  for (const path of paths) {
    const parts = foldedPath(path).split('/')
    for (let end = 1; end < parts.length; end++) {
      const folder = parts.slice(0, end).join('/')
      if (!folders.has(folder)) folders.set(folder, path)
    }
  }
  for (const [index, path] of paths.entries()) {
    const other = folders.get(foldedPath(path))
    if (other === undefined) continue
    if (other.startsWith(`${path}/`)) {
      return { index, message: `${quote(path)} is a file and also a folder of another item` }
    }
    return { index, message: `${quote(path)} and a folder of ${quote(other)} ${ONE_FILE}` }
  }
  return null
}

const ONE_FILE = 'are one name where case or Unicode normalization is ignored (macOS, Windows)'

/**
 * What a folder published as a site leaves behind: hidden files and folders (a name starting with
 * a dot: .git, .env, .DS_Store) and installed packages. The web app's folder drop follows it, the
 * rule `svc push` follows without `--all`.
 */
export const isLeftOut = (name: string) => name.startsWith('.') || name === 'node_modules'
