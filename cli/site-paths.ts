import { itemListProblem, itemPathProblem } from '../src/lib/item-paths'
import { CliError } from './errors'

// A site's paths are checked by the API's own rules (src/lib/item-paths.ts): before anything is
// uploaded, and again on every path a pull writes, whatever the server answered.

/** The API's default for MAX_SITE_ITEMS; a service set higher is matched by CANVAS_MAX_SITE_ITEMS. */
export const DEFAULT_MAX_FILES = 1000

/** What is wrong with a path, in the API's words, or null when it may be a site's item. */
export const pathProblem = itemPathProblem

/**
 * Throws at the first path the API would refuse, naming it; then refuses a list the API would:
 * too many, a path twice, two paths one file system would take for one.
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
  const clash = itemListProblem(paths, shown)
  if (clash) throw new CliError(`cannot ${verb} these files: ${clash.message}`, 'invalid_path')
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
