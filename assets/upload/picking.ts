// What a person picked to publish: a file, or a folder (chosen, or dropped) as a site, with the
// files a push leaves out set aside, and the server's checks of a site made first.
import { isLeftOut, itemListProblem, itemPathProblem } from '../../src/lib/item-paths'
import { tooLarge, tooMany, UploadError } from './errors'

/** A file of a site, by its path in the site. */
export type Picked = { file: File; path: string }
/** What one Publish sends: a file, or the files of a site and its title. */
export type Batch =
  { kind: 'file'; file: File } | { kind: 'site'; name: string; files: Picked[]; left: string[] }
export type Site = Extract<Batch, { kind: 'site' }>

/** A folder chosen with the folder button: paths below the folder itself. */
export function siteFromPicker(files: File[], maxFiles: number): Batch {
  const picked: Picked[] = []
  const left: string[] = []
  const name = files[0].webkitRelativePath.split('/')[0] || 'site'
  for (const file of files) {
    const parts = (file.webkitRelativePath || file.name).split('/').slice(1)
    const path = parts.join('/') || file.name
    if (parts.some(isLeftOut)) left.push(path)
    else picked.push({ file, path })
    if (picked.length > maxFiles) throw tooMany(maxFiles)
  }
  return { kind: 'site', name, files: sorted(picked), left }
}

/**
 * Dropped entries as a site: one folder's files by their paths below it (the folder names the
 * site); several files or folders side by side by their own names (the main file names it).
 */
export async function siteFromEntries(
  entries: FileSystemEntry[],
  files: File[],
  maxFiles: number,
): Promise<Batch> {
  const picked: Picked[] = []
  const left: string[] = []
  const one = entries.length === 1 && entries[0].isDirectory
  const walk = async (entry: FileSystemEntry, prefix: string) => {
    const path = prefix + entry.name
    if (isLeftOut(entry.name)) {
      left.push(path)
      return
    }
    if (entry.isFile) {
      picked.push({ file: await fileOf(entry as FileSystemFileEntry), path })
      if (picked.length > maxFiles) throw tooMany(maxFiles)
    } else if (entry.isDirectory) {
      for (const child of await children(entry as FileSystemDirectoryEntry)) {
        await walk(child, `${path}/`)
      }
    }
  }
  if (entries.length === 0) {
    // No entries API: the dropped files themselves, side by side.
    for (const file of files) picked.push({ file, path: file.name })
  } else if (one) {
    for (const child of await children(entries[0] as FileSystemDirectoryEntry)) {
      await walk(child, '')
    }
  } else {
    for (const entry of entries) await walk(entry, '')
  }
  const site = sorted(picked)
  const main = site.find((f) => f.path === 'index.html') ?? site[0]
  const name = one ? entries[0].name : (main?.path.split('/').pop() ?? 'site')
  return { kind: 'site', name, files: site, left }
}

/** The checks the server makes of a site, made first so that nothing is sent for nothing. */
export function checkSite(site: Site, maxFiles: number, maxBytes: number) {
  if (site.files.length === 0) {
    throw new UploadError(
      `Nothing to publish in ${site.name}: hidden files and node_modules are left out, as svc push leaves them.`,
      false,
    )
  }
  if (site.files.length > maxFiles) throw tooMany(maxFiles)
  for (const { file, path } of site.files) {
    const problem = itemPathProblem(path)
    if (problem)
      throw new UploadError(`“${path}” cannot be part of a site: its path ${problem}.`, false)
    if (maxBytes && file.size > maxBytes) throw tooLarge(path, maxBytes)
  }
  const clash = itemListProblem(
    site.files.map((f) => f.path),
    (path) => `“${path}”`,
  )
  if (clash) throw new UploadError(`These files cannot make one site: ${clash.message}.`, false)
}

const sorted = (files: Picked[]) =>
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))

function fileOf(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject))
}

/** Every entry of a folder: the browser hands them out a batch at a time. */
async function children(folder: FileSystemDirectoryEntry): Promise<FileSystemEntry[]> {
  const reader = folder.createReader()
  const all: FileSystemEntry[] = []
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) =>
      reader.readEntries(resolve, reject),
    )
    if (batch.length === 0) return all
    all.push(...batch)
  }
}
