import { createHash } from 'node:crypto'
import { createReadStream, createWriteStream, existsSync, renameSync, rmSync } from 'node:fs'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { open } from 'node:fs/promises'
import { pipeline } from 'node:stream/promises'
import { causeOf, errorFrom } from './client'
import { CliError } from './errors'
import { log } from './log'
import { progress } from './progress'

// Files move as streams: hashing, uploading and downloading never hold a whole file in memory.
const CHUNK = 64 * 1024

/** Reads into one reused buffer, so hashing a file of any size allocates nothing per chunk. */
export async function hashFile(path: string, size: number): Promise<string> {
  const hash = createHash('sha256')
  const bar = progress('hashing  ', size)
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
): Promise<void> {
  const target = new URL(url)
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest
  const started = performance.now()
  const bar = progress('uploading', size)
  return new Promise((resolve, reject) => {
    const req = send(target, {
      method: 'PUT',
      headers: { ...headers, 'Content-Length': String(size), 'Content-Type': contentType },
    })
    req.on('error', (err) =>
      reject(new CliError(`upload failed: ${causeOf(err)}`, 'network_error')),
    )
    req.on('response', async (res) => {
      const chunks: Buffer[] = []
      for await (const chunk of res) chunks.push(chunk as Buffer)
      log('INFO', `PUT ${target.pathname}`, {
        status: res.statusCode,
        ms: Math.round(performance.now() - started),
      })
      bar.done()
      if ((res.statusCode ?? 500) < 300) return resolve()
      const body = new Response(Buffer.concat(chunks), { status: res.statusCode })
      reject(await errorFrom(body))
    })
    const file = createReadStream(path, { highWaterMark: CHUNK })
    file.on('data', (chunk) => bar.advance(chunk.length))
    file.on('error', (err) => req.destroy(err))
    file.pipe(req)
  })
}

/**
 * Fetches a signed URL (no API key) and streams it to `output`, or stdout when `output` is null.
 * A file is written beside its target and renamed at the end, so a failed download leaves nothing.
 */
export async function downloadTo(url: string, output: string | null, force: boolean) {
  refuseOverwrite(output, force)
  const started = performance.now()
  const response = await get(url)
  const status = response.statusCode ?? 0
  log('INFO', `GET ${new URL(url).pathname}`, {
    status,
    ms: Math.round(performance.now() - started),
  })
  if (status >= 300) {
    const chunks: Buffer[] = []
    for await (const chunk of response) chunks.push(chunk as Buffer)
    throw await errorFrom(new Response(Buffer.concat(chunks), { status }))
  }
  const total = Number(response.headers['content-length'] ?? 0)
  const bar = progress('downloading', output ? total : 0)
  response.on('data', (chunk: Buffer) => bar.advance(chunk.length))
  if (!output) {
    await pipeline(response, process.stdout, { end: false })
    return
  }
  const temp = `${output}.svc-${process.pid}.part`
  try {
    await pipeline(response, createWriteStream(temp, { mode: 0o644 }))
    renameSync(temp, output)
  } catch (err) {
    rmSync(temp, { force: true })
    throw err instanceof CliError
      ? err
      : new CliError(`download failed: ${causeOf(err)}`, 'io_error')
  }
  bar.done()
}

/** A plain streaming GET (node:http keeps memory flat where fetch buffers ahead). */
function get(url: string): Promise<IncomingMessage> {
  const target = new URL(url)
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve, reject) => {
    const req = send(target, { method: 'GET' }, resolve)
    req.on('error', (err) =>
      reject(new CliError(`download failed: ${causeOf(err)}`, 'network_error')),
    )
    req.end()
  })
}

/** Checked before asking for the content too, so a refused download spends no share view. */
export function refuseOverwrite(output: string | null, force: boolean) {
  if (output && existsSync(output) && !force) {
    throw new CliError(`${output} exists; pass --force to overwrite it`, 'file_exists')
  }
}

/** A name safe to create in the current folder: no path, no control or reserved characters. */
export function safeFileName(name: string): string {
  const cleaned = name
    .replace(/[\u0000-\u001f\u007f/\\:*?"<>|]/g, '_')
    .replace(/^[.\s]+/, '_')
    .trim()
    .slice(0, 200)
  return cleaned || 'download'
}
