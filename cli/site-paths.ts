import { LONE_SURROGATE } from '../src/lib/content-types'
import { CliError } from './errors'

// The rules a site's paths follow, as the API checks them (src/schema/requests.ts `itemPath` and
// src/domain/site-items.ts, which the CLI may not import): checked before anything is uploaded,
// and again on every path a pull writes, whatever the server answered.

/** The API's default for MAX_SITE_ITEMS; a service set higher is matched by CANVAS_MAX_SITE_ITEMS. */
export const DEFAULT_MAX_FILES = 1000
const MAX_PATH_BYTES = 512

/** What is wrong with a path, in the API's words, or null when it may be a site's item. */
export function pathProblem(path: string): string | null {
  if (path === '') return 'must not be empty'
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) return `must be at most ${MAX_PATH_BYTES} bytes`
  if (/[\u0000-\u001f\u007f]/.test(path)) return 'must not contain control characters'
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
 * Throws at the first path the API would refuse, naming it; then refuses a list the API would:
 * too many, a path twice, a path that is also another's folder.
 */
export function checkSitePaths(paths: string[], maxFiles = maxSiteFiles(), verb = 'publish') {
  if (paths.length > maxFiles) throw tooManyFiles(maxFiles)
  const problems = paths.flatMap((path) => {
    const problem = pathProblem(path)
    return problem ? [`${shown(path)}: a path ${problem}`] : []
  })
  if (problems.length > 0) {
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''
    throw new CliError(`cannot ${verb} ${problems[0]}${more}`, 'invalid_path')
  }
  const files = new Set<string>()
  const folders = new Set<string>()
  for (const path of paths) {
    if (files.has(path))
      throw new CliError(`the path ${shown(path)} is given twice`, 'invalid_path')
    files.add(path)
    const parts = path.split('/')
    for (let end = 1; end < parts.length; end++) folders.add(parts.slice(0, end).join('/'))
  }
  for (const path of paths) {
    if (folders.has(path)) {
      throw new CliError(
        `the path ${shown(path)} is a file and also a folder of another`,
        'invalid_path',
      )
    }
  }
}

export const tooManyFiles = (maxFiles: number) =>
  new CliError(
    `too many files: a site holds at most ${maxFiles}, and this folder has more`,
    'too_many_files',
  )

export function maxSiteFiles(): number {
  const set = process.env.CANVAS_MAX_SITE_ITEMS
  return set && /^\d+$/.test(set) && Number(set) > 0 ? Number(set) : DEFAULT_MAX_FILES
}

// Characters a terminal would act on or hide, written out instead: a name must read as it is.
const UNSEEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|[\ud800-\udfff]/gu

/** A path quoted for a message, anything invisible in it shown as an escape (`\u0007`). */
export function shown(path: string): string {
  const escaped = path.replace(UNSEEN, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  return `'${escaped}'`
}
