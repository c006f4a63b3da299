import { statSync } from 'node:fs'
import type { Api } from './client'
import { CliError } from './errors'
import type { SiteFile } from './folder'
import { siteProgress, type Progress } from './progress'
import { describeFile, sendFile, type Described } from './upload'

// A site's files up: each hashed, and sent only when the workspace does not hold its bytes yet.
// Several at a time, each streamed as a single file is (./transfer), under one progress line.

// Enough to keep the API busy while a file is hashed or sent; few enough that the connections and
// the buffers (four 64 KiB ones a PUT) stay small.
const CONCURRENCY = 6

export type SiteItem = { path: string; file_id: string; sha256: string }

export type SiteUpload = {
  items: SiteItem[]
  /** Files whose bytes were sent; every other one was there already. */
  uploaded: number
  uploadedBytes: number
}

/** Digests of files hashed before, so a watch hashes again only what changed. */
export type HashCache = Map<string, { stamp: string; file: Described }>

/**
 * Uploads `files`. `known` maps a digest to the id of a file the workspace holds (the files of the
 * version in place): those cost no request at all. The same bytes twice in the folder go up once.
 */
export async function uploadSite(
  api: Api,
  files: SiteFile[],
  known: Map<string, string>,
  cache?: HashCache,
): Promise<SiteUpload> {
  const total = files.reduce((sum, f) => sum + f.size, 0)
  const bar = siteProgress(files.length, total)
  const items: SiteItem[] = new Array(files.length)
  const sending = new Map<string, Promise<string>>()
  let uploaded = 0
  let uploadedBytes = 0
  await pool(files.length, CONCURRENCY, async (index) => {
    const file = await describe(files[index], cache, bar.file)
    let fileId = known.get(file.sha256)
    let sent = false
    if (!fileId) {
      let pending = sending.get(file.sha256)
      if (!pending) {
        pending = sendFile(api, file, bar.file).then((result) => {
          sent = result.uploaded
          return result.fileId
        })
        sending.set(file.sha256, pending)
      }
      fileId = await pending
    }
    if (sent) {
      uploaded++
      uploadedBytes += file.size
    }
    items[index] = { path: files[index].path, file_id: fileId, sha256: file.sha256 }
    bar.finished(file.size, sent ? 0 : file.size)
  })
  bar.done()
  return { items, uploaded, uploadedBytes }
}

async function describe(file: SiteFile, cache: HashCache | undefined, bar: Progress) {
  let stats
  try {
    stats = statSync(file.source)
  } catch {
    // Gone since the folder was read (an editor's temporary file): as a single file's push says.
    throw new CliError(`no such file: ${file.path}`, 'file_not_found')
  }
  const stamp = [file.source, stats.size, stats.mtimeMs, stats.ctimeMs, stats.ino].join(':')
  const hit = cache?.get(file.path)
  if (hit?.stamp === stamp) return hit.file
  const started = Date.now()
  const described = await describeFile(file.source, file.path, bar)
  // A file written within a second before it was hashed may be written again within the same
  // tick of the file system's clock, unseen by its times: hash it again next time.
  const settled = Math.max(stats.mtimeMs, stats.ctimeMs) < started - 1000
  if (cache && settled && described.size === stats.size) {
    cache.set(file.path, { stamp, file: described })
  }
  return described
}

/** Runs `work` on 0..count-1, `size` at a time; after a failure, starts nothing more. */
async function pool(count: number, size: number, work: (index: number) => Promise<void>) {
  let next = 0
  let failed = false
  const worker = async () => {
    while (!failed && next < count) {
      const index = next++
      try {
        await work(index)
      } catch (err) {
        failed = true
        throw err
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(size, count) }, worker))
}
