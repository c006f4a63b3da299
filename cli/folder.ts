import { accessSync, constants, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs'
import { basename, join, relative, resolve, sep } from 'node:path'
import { CliError } from './errors'
import { checkSitePaths, maxSiteFiles, shown, tooManyFiles } from './site-paths'

// The files of a folder as a site's items: regular files, by their path relative to the folder,
// `/`-separated. Nothing outside the folder is ever read, hidden files and node_modules stay
// behind unless asked for, and every path is checked before a byte is uploaded.

export type SiteFile = {
  /** The item's path: relative, `/`-separated. */
  path: string
  /** Where its bytes are read from (a link's target, for a link to a file in the folder). */
  source: string
  /** Its size when the folder was read (read again before it is hashed). */
  size: number
}

export type Folder = {
  /** The folder's own name, as given (a link's, not its target's): a site's default title. */
  name: string
  root: string
  files: SiteFile[]
  /** Every folder walked, for a watch to follow. */
  folders: string[]
  /** What was left out, by path, for a note on stderr. */
  left: { hidden: string[]; outside: string[]; special: string[] }
}

/** Hidden files (a name starting with a dot: .git, .env, .DS_Store) and installed packages. */
export const isLeftOut = (name: string) => name.startsWith('.') || name === 'node_modules'

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Walks `path`; throws before anything is uploaded when its contents cannot make a site. */
export function readFolder(path: string, options: { all?: boolean } = {}): Folder {
  const root = realpathSync(path)
  const maxFiles = maxSiteFiles()
  const folder: Folder = {
    name: basename(resolve(path)),
    root,
    files: [],
    folders: [],
    left: { hidden: [], outside: [], special: [] },
  }
  const walk = (dir: string, prefix: string) => {
    folder.folders.push(dir)
    for (const entry of readdirSync(dir, { withFileTypes: true, encoding: 'buffer' })) {
      const name = decodeName(entry.name, prefix)
      const full = join(dir, name)
      const path = prefix + name
      if (!options.all && isLeftOut(name)) {
        folder.left.hidden.push(path)
        continue
      }
      // Some file systems do not give the type in the listing: ask for it then.
      const stats = entry.isFile() || entry.isDirectory() || entry.isSymbolicLink() ? entry : null
      const kind = stats ?? lstatSync(full)
      if (kind.isDirectory()) walk(full, `${path}/`)
      else if (kind.isFile()) add(path, full)
      else if (kind.isSymbolicLink()) followLink(path, full)
      // A pipe or a device would block or never end: never read one.
      else folder.left.special.push(path)
      // A folder of a million files is not read to the end to be refused.
      if (folder.files.length > maxFiles) throw tooManyFiles(maxFiles)
    }
  }
  const add = (path: string, source: string) => {
    try {
      accessSync(source, constants.R_OK)
    } catch {
      throw new CliError(`cannot read ${shown(path)} in ${root}: permission denied`, 'io_error')
    }
    folder.files.push({ path, source, size: statSync(source).size })
  }
  /** A link to a file inside the folder is that file again; any other link is left out. */
  const followLink = (path: string, full: string) => {
    let target: string
    try {
      target = realpathSync(full)
    } catch {
      return folder.left.outside.push(path)
    }
    const inside = relative(root, target)
    const stays =
      target.startsWith(root + sep) &&
      (options.all || !inside.split(sep).some(isLeftOut)) &&
      statSync(target).isFile()
    if (stays) add(path, target)
    else folder.left.outside.push(path)
  }
  walk(root, '')
  folder.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  const paths = folder.files.map((f) => f.path)
  if (paths.length === 0) {
    const hint =
      folder.left.hidden.length > 0 ? ' (hidden files are left out unless --all is given)' : ''
    throw new CliError(`no files to publish in ${path}${hint}`, 'invalid_path')
  }
  checkSitePaths(paths, maxFiles)
  return folder
}

/** A name as the bytes on disk spell it; one that is not UTF-8 could not be named in a URL. */
function decodeName(bytes: Buffer, prefix: string): string {
  try {
    return utf8.decode(bytes)
  } catch {
    const name = bytes.toString('utf8')
    throw new CliError(
      `cannot publish ${shown(prefix + name)}: its name is not valid UTF-8`,
      'invalid_path',
    )
  }
}

/** A note on stderr of what was not published, so that nothing is missing without a word. */
export function leftOutNote(folder: Folder): string | null {
  const { hidden, outside, special } = folder.left
  const notes = [
    hidden.length > 0 && `${list(hidden)} (hidden or node_modules; --all includes them)`,
    outside.length > 0 && `${list(outside)} (links to a folder, to nothing or out of the folder)`,
    special.length > 0 && `${list(special)} (neither files nor folders)`,
  ].filter(Boolean)
  return notes.length > 0 ? `left out ${notes.join('; ')}` : null
}

const list = (paths: string[]) =>
  paths.slice(0, 3).map(shown).join(', ') +
  (paths.length > 3 ? ` and ${paths.length - 3} more` : '')
