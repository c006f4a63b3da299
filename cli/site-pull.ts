import { createHash } from 'node:crypto'
import { existsSync, lstatSync, mkdirSync, renameSync, rmSync, statSync, type Stats } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { join, resolve, sep } from 'node:path'
import { CliError } from './errors'
import { checkSitePaths, shown } from './site-paths'
import type { Item } from './types'
import { crc32, zipEntries, type ZipEntry } from './zip'

// A version's archive, saved to a file, written out as a folder. Every path is checked again as
// the API checks it, and every write lands under the folder: never through a symbolic link found
// there, never over an existing file without --force. Each file is checked against the archive's
// CRC-32 and, when the version's items are known, their sha256.

const CHUNK = 64 * 1024

/** The entries of the archive at `zipPath`, for the caller to tell a site from a single file. */
export async function readArchive(zipPath: string) {
  const file = await open(zipPath, 'r')
  try {
    return await zipEntries(file, (await file.stat()).size)
  } finally {
    await file.close()
  }
}

/** Writes every entry under `folder`; `expected`: the version's items, when they are known. */
export async function extractSite(
  zipPath: string,
  entries: ZipEntry[],
  folder: string,
  options: { force: boolean; expected?: Item[] },
) {
  const paths = entries.map((e) => e.name)
  const root = resolve(folder)
  const targets = checkFolder(folder, paths, options.force)
  const digests = options.expected && expectedDigests(paths, options.expected)
  const file = await open(zipPath, 'r')
  let bytes = 0
  try {
    for (const [i, entry] of entries.entries()) {
      makeFolders(root, paths[i])
      await copyEntry(file, entry, targets[i], options.force, digests?.get(entry.name))
      bytes += entry.size
    }
  } finally {
    await file.close()
  }
  return { files: entries.length, bytes }
}

/**
 * Checks that every path may be written under `folder` (the paths as the API checks them, no link
 * or file in the way, no file there already unless forced); answers where each goes. Everything
 * is checked before the first write: a refusal leaves the folder as it was.
 */
export function checkFolder(folder: string, paths: string[], force: boolean): string[] {
  checkSitePaths(paths, Number.MAX_SAFE_INTEGER, 'write')
  const root = resolve(folder)
  // The folder itself may be a link the person chose to name; below it, no link is followed.
  const stats = existsSync(root) ? statSync(root) : null
  if (stats && !stats.isDirectory()) {
    throw new CliError(`${folder} exists and is not a folder`, 'file_exists')
  }
  return paths.map((path) => {
    const target = targetOf(root, path)
    checkTarget(root, path, target, force)
    return target
  })
}

/** The archive must hold exactly the version's items: a path each, no more, no fewer. */
function expectedDigests(paths: string[], items: Item[]) {
  const digests = new Map(items.map((item) => [item.path, item.sha256]))
  const same = paths.length === digests.size && paths.every((path) => digests.has(path))
  if (!same) throw new CliError('the archive does not hold the version’s files', 'bad_response')
  return digests
}

/** Where a path goes: under the folder, whatever the path says (checked above, and here again). */
function targetOf(root: string, path: string): string {
  const target = join(root, ...path.split('/'))
  if (!target.startsWith(root + sep)) {
    throw new CliError(`refusing to write ${shown(path)} outside ${root}`, 'invalid_path')
  }
  return target
}

const statOf = (path: string): Stats | null => {
  try {
    return lstatSync(path)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw err
  }
}

/** Refuses a path whose folders include a link or a file, or whose file exists (unless forced). */
function checkTarget(root: string, path: string, target: string, force: boolean) {
  const parts = path.split('/')
  for (let end = 1; end < parts.length; end++) {
    const folder = join(root, ...parts.slice(0, end))
    const stats = statOf(folder)
    if (!stats) return
    if (stats.isSymbolicLink()) {
      throw new CliError(`refusing to write through the symbolic link ${folder}`, 'file_exists')
    }
    if (!stats.isDirectory()) throw new CliError(`${folder} is a file, not a folder`, 'file_exists')
  }
  const stats = statOf(target)
  if (stats?.isDirectory()) throw new CliError(`${target} is a folder`, 'file_exists')
  if (stats && !force) throw exists(target)
}

const exists = (target: string) =>
  new CliError(`${target} exists; pass --force to overwrite it`, 'file_exists')

/** Creates a path's folders one at a time, each checked to be a folder and not a link. */
function makeFolders(root: string, path: string) {
  mkdirSync(root, { recursive: true })
  const parts = path.split('/')
  for (let end = 1; end < parts.length; end++) {
    const folder = join(root, ...parts.slice(0, end))
    try {
      mkdirSync(folder)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    }
    const stats = lstatSync(folder)
    if (!stats.isDirectory()) {
      throw new CliError(`refusing to write through ${folder}: not a folder`, 'file_exists')
    }
  }
}

/** Copies an entry to a file beside `target`, checks it, then renames it into place. */
async function copyEntry(
  zip: FileHandle,
  entry: ZipEntry,
  target: string,
  force: boolean,
  sha256?: string,
) {
  const temp = `${target}.svc-${process.pid}.part`
  const buffer = Buffer.allocUnsafe(CHUNK)
  const hash = sha256 ? createHash('sha256') : null
  let crc = 0
  // 'wx': a file already at the temporary name, a link included, is never written through.
  const out = await open(temp, 'wx', 0o644)
  try {
    for (let done = 0; done < entry.size;) {
      const want = Math.min(CHUNK, entry.size - done)
      const { bytesRead } = await zip.read(buffer, 0, want, entry.offset + done)
      if (bytesRead === 0) throw new CliError('the archive ends early', 'bad_response')
      const chunk = buffer.subarray(0, bytesRead)
      crc = crc32(crc, chunk)
      hash?.update(chunk)
      await out.write(chunk)
      done += bytesRead
    }
    await out.close()
    if (crc !== entry.crc || (hash && hash.digest('hex') !== sha256)) {
      throw new CliError(
        `${shown(entry.name)} arrived damaged (its checksum differs)`,
        'bad_response',
      )
    }
    // Checked again at the last moment: another entry may have just written the same file (two
    // names one file on a case-insensitive disk).
    if (!force && statOf(target)) throw exists(target)
    renameSync(temp, target)
  } catch (err) {
    await out.close().catch(() => {})
    rmSync(temp, { force: true })
    throw err
  }
}
