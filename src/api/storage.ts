import { checkedBy } from '../http/actor/steps'
import { Hono } from 'hono'
import { cors } from 'hono/cors'
import { AppError } from '../lib/errors'
import { parseBlobKey } from '../storage/blobs'
import { markStored } from '../domain/files'
import { LOCAL_STORAGE_PATH, localTarget, verifyPresigned } from '../storage/presign'
import { requestOrigin, type AppContext, type AppEnv } from '../http/context'
import { readRange } from '../lib/range'

// Local mode's stand-in for R2's S3 endpoint: presigned PUT and GET, checked exactly as S3 would.
export const storage = new Hono<AppEnv>()

// The web app's uploads PUT here from the page's origin, which differs when CONTENT_URL is set,
// as they would to R2 with its CORS rule. The signature in the URL is the credential, never a
// cookie, so any origin may send it.
storage.use(
  '*',
  cors({
    origin: '*',
    allowMethods: ['GET', 'HEAD', 'PUT'],
    allowHeaders: ['Content-Type', 'If-None-Match', 'x-amz-checksum-sha256'],
    exposeHeaders: ['ETag'],
    maxAge: 600,
  }),
)

// Content shares the app's origin here, so it may never run as the app: an opaque-origin sandbox.
const CONTENT_HEADERS = {
  'Content-Security-Policy':
    "sandbox; default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'",
  'X-Content-Type-Options': 'nosniff',
  // Frames embed this content from an opaque (sandboxed) origin; the signature is the guard.
  'Cross-Origin-Resource-Policy': 'cross-origin',
  'Referrer-Policy': 'no-referrer',
}

storage.put('/*', checkedBy('signed'), async (c) => {
  const key = await authorize(c, 'PUT')
  const parsed = parseBlobKey(key)
  if (!parsed) throw new AppError('invalid_request', 'not a content key')
  const length = Number(c.req.header('Content-Length'))
  if (!c.req.header('Content-Length') || !Number.isSafeInteger(length) || length < 0) {
    throw new AppError('invalid_request', 'Content-Length is required')
  }
  if (length > c.var.svc.settings.maxFileBytes) {
    throw new AppError(
      'payload_too_large',
      `over the limit of ${c.var.svc.settings.maxFileBytes} bytes`,
    )
  }
  let stored: R2Object | null
  try {
    // The key names the sha256, so R2 itself refuses bytes that are not that content.
    stored = await c.var.svc.bucket.put(key, c.req.raw.body ?? new Uint8Array(0), {
      sha256: parsed.sha256,
      onlyIf: { etagDoesNotMatch: '*' },
    })
  } catch (err) {
    if (/SHA-256|checksum/i.test(String(err))) {
      throw new AppError('checksum_mismatch', 'the content does not match the sha256 in its key')
    }
    throw err
  }
  // Presign answers `exists` from the file's row, so the row hears of the bytes before the client
  // does: of these, or of bytes already there (whose first PUT may have failed to say so).
  await markStored(c.var.svc, parsed.workspaceId, parsed.sha256)
  if (!stored)
    throw new AppError('precondition_failed', 'the object exists already and is never overwritten')
  return c.body(null, 200, { ETag: stored.httpEtag })
})

storage.get('/*', checkedBy('signed'), async (c) => {
  const key = await authorize(c, 'GET')
  const bucket = c.var.svc.bucket
  const rangeHeader = c.req.header('Range')
  // Only a Range request needs the size before reading: to tell a part from a range past the end.
  const head = rangeHeader === undefined ? null : await bucket.head(key)
  const range = head ? readRange(rangeHeader, head.size) : ({ kind: 'whole' } as const)
  if (range.kind === 'unsatisfiable') {
    return c.body(null, 416, { ...CONTENT_HEADERS, 'Content-Range': `bytes */${head!.size}` })
  }
  const object = await bucket.get(
    key,
    range.kind === 'part' ? { range: { offset: range.offset, length: range.length } } : {},
  )
  if (!object) throw new AppError('not_found', 'no such object')
  const params = new URL(c.req.url).searchParams
  const headers = new Headers(CONTENT_HEADERS)
  headers.set('Content-Type', params.get('response-content-type') ?? 'application/octet-stream')
  const disposition = params.get('response-content-disposition')
  if (disposition) headers.set('Content-Disposition', disposition)
  headers.set('ETag', object.httpEtag)
  headers.set('Accept-Ranges', 'bytes')
  headers.set('Cache-Control', 'private, max-age=60')
  const body = c.req.method === 'HEAD' ? null : (object as R2ObjectBody).body
  if (range.kind === 'part') {
    const last = range.offset + range.length - 1
    headers.set('Content-Range', `bytes ${range.offset}-${last}/${object.size}`)
    headers.set('Content-Length', String(range.length))
    return new Response(body, { status: 206, headers })
  }
  headers.set('Content-Length', String(object.size))
  return new Response(body, { headers })
})

/** Checks the signature against the URL as received; returns the object key. */
async function authorize(c: AppContext, method: 'GET' | 'PUT'): Promise<string> {
  const secret = c.var.svc.settings.storageSigningSecret
  if (!secret) {
    throw new AppError(
      'storage_not_configured',
      'local storage is not configured: set STORAGE_SIGNING_SECRET',
    )
  }
  const verdict = await verifyPresigned(method, c.req.url, localTarget(requestOrigin(c), secret))
  if (verdict === 'expired') throw new AppError('forbidden', 'the signed URL has expired')
  if (verdict === 'invalid') throw new AppError('forbidden', 'the signature does not match')
  const path = new URL(c.req.url).pathname
  return decodeURIComponent(path.slice(LOCAL_STORAGE_PATH.length + 1))
}
