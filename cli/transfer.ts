import { createHash } from 'node:crypto'
import { closeSync, existsSync, openSync, renameSync, rmSync, writeSync } from 'node:fs'
import type { IncomingMessage } from 'node:http'
import { open } from 'node:fs/promises'
import type { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { causeOf, errorFrom } from './client'
import { CliError } from './errors'
import { gcEvery } from './gc'
import { open as openRequest, readText, send } from './http'
import { log } from './log'
import { progress, type Progress } from './progress'

// Files move as streams: hashing, uploading and downloading never hold a whole file in memory.
const CHUNK = 64 * 1024
// Uploads read this many chunks ahead of the network, each into a buffer of its own.
const IN_FLIGHT = 4
// Downloads arrive in Node's own per-read buffers: see ./gc for why they are collected this often.
const GC_INTERVAL = 4 * 1024 * 1024

/**
 * Reads into one reused buffer, so hashing a file of any size allocates nothing per chunk. `bar`:
 * where the bytes are counted (a site's files share one).
 */
export async function hashFile(
  path: string,
  size: number,
  bar: Progress = progress('hashing  ', size),
): Promise<string> {
  const hash = createHash('sha256')
  const buffer = Buffer.allocUnsafe(CHUNK)
  const file = await open(path, 'r')
  try {
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, CHUNK, null)
      if (bytesRead === 0) break
      hash.update(buffer.subarray(0, bytesRead))
      bar.advance(bytesRead)
    }
  } finally {
    await file.close()
  }
  bar.done()
  return hash.digest('hex')
}

/** PUTs the file to a presigned URL with its length up front; the API key is never sent there. */
export function putFile(
  url: string,
  path: string,
  size: number,
  contentType: string,
  headers: Record<string, string> = {},
  bar: Progress = progress('uploading', size),
): Promise<void> {
  const target = new URL(url)
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const req = openRequest(target, {
      method: 'PUT',
      // A connection of its own, not kept alive for the API calls that follow: storage is another
      // host in production, and locally workerd closes it after a PUT without saying so.
      agent: false,
      headers: { ...headers, 'Content-Length': String(size), 'Content-Type': contentType },
    })
    const failed = (err: Error) =>
      reject(new CliError(`upload failed: ${causeOf(err)}`, 'network_error'))
    req.on('error', failed)
    req.on('response', (res) => {
      readText(res).then((text) => {
        const status = res.statusCode ?? 500
        log('INFO', `PUT ${target.pathname}`, {
          status,
          ms: Math.round(performance.now() - started),
        })
        bar.done()
        // 412: the bytes are there already (a presigned PUT never overwrites): another client, an
        // earlier try, or an upload presign could not yet know of. Finalize checks them either way.
        if (status < 300 || status === 412) resolve()
        else reject(errorFrom(status, text))
      }, failed)
    })
    sendFile(path, size, req, (bytes) => bar.advance(bytes)).then(
      () => req.end(),
      (err: Error) => req.destroy(err),
    )
  })
}

/**
 * Writes a file into `sink` through a few reused buffers, each read into again only once the sink
 * is done with it. A fresh buffer per chunk would be freed only when V8 gets round to a GC, which
 * it starts after 32 MiB of them: that garbage, not the file, was most of an upload's memory.
 */
async function sendFile(
  path: string,
  size: number,
  sink: Writable,
  advance: (bytes: number) => void,
) {
  const buffers = Array.from({ length: IN_FLIGHT }, () => Buffer.allocUnsafe(CHUNK))
  const writes: Promise<void>[] = []
  const file = await open(path, 'r')
  let sent = 0
  try {
    // Writes complete in order, so the one to wait for is always the oldest: the next buffer's.
    for (let i = 0; sent < size; i = (i + 1) % IN_FLIGHT) {
      await writes[i]
      const { bytesRead } = await file.read(buffers[i], 0, Math.min(CHUNK, size - sent), null)
      // Fewer bytes than hashed and announced: the server would wait for the rest for ever.
      if (bytesRead === 0) throw changed()
      writes[i] = written(sink, buffers[i].subarray(0, bytesRead))
      sent += bytesRead
      advance(bytesRead)
    }
    // A file that grew since it was hashed sends exactly the bytes hashed; one changed in place
    // is refused by storage, whose URL is signed for the hashed content.
    await Promise.all(writes)
  } finally {
    await file.close()
  }
}

const changed = () => new Error('the file changed while it was uploading; push it again')

/** Resolves once `sink` has handed `chunk` on, so its buffer may be filled again. */
function written(sink: Writable, chunk: Buffer): Promise<void> {
  const done = new Promise<void>((resolve, reject) => {
    // A socket that dies between writes may never call back: its close ends the wait too.
    const closed = () => reject(new Error('the connection closed'))
    sink.once('close', closed)
    sink.write(chunk, (err) => {
      sink.off('close', closed)
      if (err) reject(err)
      else resolve()
    })
  })
  // Awaited in turn by sendFile; until then a failure must not count as unhandled.
  done.catch(() => {})
  return done
}

/**
 * Fetches a signed URL (no API key) and streams it to `output`, or stdout when `output` is null.
 * A file is written beside its target and renamed at the end, so a failed download leaves nothing.
 * `textOnTerminal`: stdout that is a terminal takes text only; binary bytes there would garble it
 * (`-o -` says otherwise).
 */
export async function downloadTo(
  url: string,
  output: string | null,
  force: boolean,
  options: { textOnTerminal?: boolean } = {},
): Promise<number> {
  refuseOverwrite(output, force)
  const started = performance.now()
  const response = await get(url)
  const status = response.statusCode ?? 0
  log('INFO', `GET ${new URL(url).pathname}`, {
    status,
    ms: Math.round(performance.now() - started),
  })
  if (status >= 300) throw errorFrom(status, await readText(response))
  if (!output && options.textOnTerminal && process.stdout.isTTY) {
    const type = String(response.headers['content-type'] ?? '')
    if (!isText(type)) {
      response.destroy()
      throw new CliError(
        `binary content (${type || 'unknown type'}): give -o <file>, or -o - to print it anyway`,
        'usage',
      )
    }
  }
  return writeBody(response, output)
}

/** What a download may not exceed: past `bytes`, it stops and fails with `error`. */
export type Limit = { bytes: number; error: () => CliError }

/**
 * Streams a response's body to `output`, or stdout when null. A file is written beside its target
 * and renamed at the end, so a failed download leaves nothing. `total`: the size to show progress
 * against when the response does not say it. `limit`: a body may not run past it (an archive of
 * listed files): the download stops as soon as it does. Answers the number of bytes written.
 */
export async function writeBody(
  response: IncomingMessage,
  output: string | null,
  options: { total?: number; limit?: Limit } = {},
): Promise<number> {
  const { limit } = options
  const total = options.total ?? Number(response.headers['content-length'] ?? 0)
  if (limit && Number(response.headers['content-length'] ?? 0) > limit.bytes) {
    response.destroy()
    throw limit.error()
  }
  const body = limit ? bounded(response, limit) : response
  const bar = progress('downloading', output ? total : 0)
  const collect = gcEvery(GC_INTERVAL)
  let written = 0
  const count = (bytes: number) => {
    written += bytes
    collect(bytes)
  }
  if (!output) {
    await pipeline(counted(body, count), process.stdout, { end: false })
    return written
  }
  const temp = `${output}.svc-${process.pid}.part`
  try {
    await save(body, temp, (bytes) => {
      bar.advance(bytes)
      count(bytes)
    })
    renameSync(temp, output)
  } catch (err) {
    rmSync(temp, { force: true })
    throw err instanceof CliError
      ? err
      : new CliError(`download failed: ${causeOf(err)}`, 'io_error')
  }
  bar.done()
  return written
}

/** The body, failing at the first chunk past the limit (the response is then closed). */
async function* bounded(body: AsyncIterable<Buffer>, limit: Limit) {
  let received = 0
  for await (const chunk of body) {
    received += chunk.length
    if (received > limit.bytes) throw limit.error()
    yield chunk
  }
}

async function* counted(body: AsyncIterable<Buffer>, count: (bytes: number) => void) {
  for await (const chunk of body) {
    count(chunk.length)
    yield chunk
  }
}

/**
 * Writes each chunk as it arrives, synchronously, and reads the next only then. Writing into the
 * page cache at once, instead of queueing every chunk for libuv's thread pool, is what let a
 * download keep pace with curl; this process has nothing else to do meanwhile.
 */
async function save(body: AsyncIterable<Buffer>, path: string, received: (bytes: number) => void) {
  const fd = openSync(path, 'w', 0o644)
  try {
    for await (const chunk of body) {
      for (let done = 0; done < chunk.length;) done += writeSync(fd, chunk, done)
      received(chunk.length)
    }
  } finally {
    closeSync(fd)
  }
}

/** The response to a plain GET (on a connection of its own) once its headers are in. */
async function get(url: string): Promise<IncomingMessage> {
  try {
    return await send(new URL(url), { method: 'GET', agent: false })
  } catch (err) {
    throw new CliError(`download failed: ${causeOf(err)}`, 'network_error')
  }
}

const isText = (type: string) =>
  /^(text\/|application\/(json|xml|javascript|[\w.+-]*\+(json|xml)))|image\/svg\+xml/i.test(type)

/** Checked before asking for the content too, so a refused download spends no share view. */
export function refuseOverwrite(output: string | null, force: boolean) {
  if (output && existsSync(output) && !force) {
    throw new CliError(`${output} exists; pass --force to overwrite it`, 'file_exists')
  }
}

// Characters that change how a name reads without being seen: controls (C0, C1), format
// characters (bidirectional marks, embeddings, overrides and isolates, zero-width characters, the
// soft hyphen, tags) and line and paragraph separators. "invoice\u202Efdp.exe" would otherwise
// display as "invoiceexe.pdf".
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g
const RESERVED = /[/\\:*?"<>|]/g
// Most file systems allow 255 bytes a name; room is left for a "(1)" a browser or a person adds.
const MAX_NAME_BYTES = 200

/**
 * `<title>.<ext>` made safe to create in the current folder: no path, no invisible, control or
 * reserved characters, at most 200 UTF-8 bytes, and the extension kept when the title is cut.
 */
export function safeFileName(title: string, ext: string): string {
  const clean = (text: string) =>
    text.replace(LONE_SURROGATE, '_').replace(INVISIBLE, '').replace(RESERVED, '_')
  const suffix = clean(ext) ? `.${clean(ext)}` : ''
  let stem = clean(title).trim()
  if (suffix && stem.toLowerCase().endsWith(suffix)) stem = stem.slice(0, -suffix.length)
  stem = stem.replace(/^[.\s]+/, '_')
  const room = MAX_NAME_BYTES - Buffer.byteLength(suffix)
  const chars = [...stem]
  while (chars.length > 0 && Buffer.byteLength(chars.join('')) > room) chars.pop()
  stem = chars.join('').trimEnd()
  return (stem || 'download') + suffix
}
