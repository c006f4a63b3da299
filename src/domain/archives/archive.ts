import type { Zip, ZipPassThrough } from 'fflate'
import { concatBytes } from '../../lib/bytes'
import { AppError } from '../../lib/errors'
import { logError } from '../../lib/log'
import type { ArchiveEntry } from '../canvases/site-reads'
import type { Services } from '../services'
import type { ObjectWriter } from '../../storage/object-writer'

// A version as one zip, streamed: each item is read from storage only when the reader of the
// response asks for more, and passes through stored (not compressed: the bytes are mostly
// compressed already, and deflating 200 MB would spend the Worker's CPU for little), so the
// Worker holds one chunk at a time and the zip's directory, however large the version.

/**
 * The largest version the archive streams. The zip format without its 64-bit extension (which
 * fflate does not write) stops at 4 GiB, but the bound here is the Worker's CPU: every byte passes
 * through a CRC-32 in JavaScript (BENCHMARKS.md: Archives).
 */
export const MAX_ARCHIVE_BYTES = 1024 * 1024 * 1024

// Storage hands over small reads; each costs a round through fflate and the
// response stream, so reads are gathered to this size first (BENCHMARKS.md, site archives).
const GATHER_BYTES = 64 * 1024

/**
 * The archive's length in bytes, known before it is made (storage takes a stream of known length
 * only): each item stored as is, behind a local header (30 bytes and its name) and before a data
 * descriptor (16), then a central directory entry each (46 and the name) and the end record (22).
 * Names are UTF-8; the zip format's 64-bit extension is never needed under MAX_ARCHIVE_BYTES.
 */
export function archiveLength(entries: ArchiveEntry[]): number {
  const encoder = new TextEncoder()
  return entries.reduce(
    (sum, entry) => sum + 92 + 2 * encoder.encode(entry.path).byteLength + entry.size,
    22,
  )
}

export function checkArchiveSize(entries: ArchiveEntry[]) {
  const total = entries.reduce((sum, entry) => sum + entry.size, 0)
  if (total > MAX_ARCHIVE_BYTES) {
    throw new AppError(
      'payload_too_large',
      `this version holds ${total} bytes, more than an archive is made of (${MAX_ARCHIVE_BYTES}); download its files one by one`,
    )
  }
}

/**
 * Where a stream keeps a copy of what it sends: the writer of the stored object, told when the
 * archive is whole (`kept`) or will not be (`dropped`: the client went away, or storage failed).
 */
export type ArchiveCopy = {
  writer: ObjectWriter
  kept: () => Promise<void>
  dropped: () => Promise<void>
}

export function archiveStream(
  svc: Services,
  entries: ArchiveEntry[],
  mtime: number,
  copy?: ArchiveCopy,
): ReadableStream<Uint8Array> {
  const ready: Uint8Array[] = []
  let ended = false
  let failure: unknown = null
  let zip: Zip | null = null
  let Entry: typeof ZipPassThrough
  let next = 0
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null
  let file: ZipPassThrough | null = null

  /** The zip, made on the first read. */
  async function zipOf(): Promise<Zip> {
    if (zip) return zip
    // fflate loads with the first archive made, not with the Worker: it builds tables as it loads.
    const fflate = await import('./zip')
    Entry = fflate.ZipPassThrough
    return (zip = new fflate.Zip((err, chunk, final) => {
      if (err) failure = err
      else ready.push(chunk)
      if (final) ended = true
    }))
  }

  /** Feeds the zip until it has output to hand over (or is done). */
  async function produce() {
    const zip = await zipOf()
    while (ready.length === 0 && !ended && !failure) {
      if (!reader) {
        if (next === entries.length) {
          zip.end()
          continue
        }
        const entry = entries[next++]
        const object = await svc.bucket.get(entry.blobKey)
        if (!object) throw new Error(`archive: the content of '${entry.path}' is missing`)
        file = new Entry(entry.path)
        file.mtime = mtime
        zip.add(file)
        reader = object.body.getReader()
      }
      const { bytes, done } = await gather(reader)
      if (done) reader = null
      file!.push(bytes, done)
    }
    if (failure) throw failure
  }

  // The copy follows the client's pace: each chunk is written before it is handed over, so the
  // Worker never holds more than a part of the copy, however slow the client.
  let keeping = copy
  async function keep(work: (copy: ArchiveCopy) => Promise<void>) {
    if (!keeping) return
    try {
      await work(keeping)
    } catch (err) {
      // The client still gets its archive; only the copy is given up.
      logError({ archive_copy_failed: true }, err)
      await drop()
    }
  }
  async function drop() {
    const dropping = keeping
    keeping = undefined
    if (!dropping) return
    await Promise.allSettled([dropping.writer.abort(), dropping.dropped()])
  }

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          await produce()
        } catch (err) {
          await drop()
          throw err
        }
        while (ready.length > 0) {
          const chunk = ready.shift()!
          await keep((c) => c.writer.write(chunk))
          controller.enqueue(chunk)
        }
        if (ended) {
          await keep(async (c) => {
            await c.writer.close()
            keeping = undefined
            await c.kept()
          })
          controller.close()
        }
      },
      async cancel(reason) {
        await drop()
        await reader?.cancel(reason)
      },
    },
    // Nothing is read ahead of the client: the next item waits until the last chunk is taken.
    { highWaterMark: 0 },
  )
}

/** Reads until GATHER_BYTES are in hand or the object ends; one chunk is passed on as it is. */
async function gather(reader: ReadableStreamDefaultReader<Uint8Array>) {
  const parts: Uint8Array[] = []
  let size = 0
  while (size < GATHER_BYTES) {
    const { done, value } = await reader.read()
    if (done) return { bytes: concatBytes(parts, size), done: true }
    parts.push(value)
    size += value.byteLength
  }
  return { bytes: concatBytes(parts, size), done: false }
}
