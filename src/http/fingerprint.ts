import type { Context } from 'hono'
import { occurrences } from '../lib/bytes'
import { toHex } from '../lib/crypto'
import { mediaType } from './validate'

const encoder = new TextEncoder()
// What each boundary delimiter of a multipart body is hashed as: NUL is never part of a boundary.
const DELIMITER = encoder.encode('--\0')

/**
 * SHA-256 of what makes two requests the same one: method, path with its query, and body bytes.
 * A multipart body is hashed with its boundary taken out: clients (browsers, curl, fetch with a
 * FormData) choose a new random boundary each time they send a form, so an honest retry of a
 * direct upload would otherwise never match. The body is hashed in place, never copied.
 */
export async function requestFingerprint(c: Context, body: Uint8Array): Promise<string> {
  const url = new URL(c.req.url)
  const digest = new crypto.DigestStream('SHA-256')
  const writer = digest.getWriter()
  await writer.write(encoder.encode(`${c.req.method} ${url.pathname}${url.search}\n`))
  for (const part of bodyParts(c, body)) await writer.write(part)
  await writer.close()
  return toHex(await digest.digest)
}

function* bodyParts(c: Context, body: Uint8Array): Generator<Uint8Array> {
  const boundary = mediaType(c) === 'multipart/form-data' ? boundaryOf(c) : null
  if (!boundary) {
    yield body
    return
  }
  const delimiter = encoder.encode('--' + boundary)
  let from = 0
  for (const at of occurrences(body, delimiter)) {
    yield body.subarray(from, at)
    yield DELIMITER
    from = at + delimiter.length
  }
  yield body.subarray(from)
}

function boundaryOf(c: Context): string | null {
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^";\s]{1,70}))/i.exec(
    c.req.header('Content-Type')!,
  )
  return match ? (match[1] ?? match[2]) : null
}
