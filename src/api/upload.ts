import { Hono } from 'hono'
import { finalizeUpload, presignAnswer, presignStatement, presignUpload } from '../domain/files'
import { storageTarget } from '../storage/target'
import { requestOrigin, type AppEnv } from '../http/context'
import { uploadBody } from '../schema/requests'
import { authorizeWrite, keyFirst, keyLimit, presentedKeyHash } from '../http/auth'
import { IDEMPOTENCY_HEADER, keepAnswerFor } from '../http/idempotency'
import { jsonBody, jsonOf } from '../http/validate'
import { documented } from '../http/route-docs'
import * as shapes from '../schema/responses'

export const upload = new Hono<AppEnv>()

// Presign registers the content in the batch that looks up the API key: one D1 round trip, where
// the /v1 key middleware and the route below took two. Mounted ahead of that middleware (app.ts),
// as the hottest reads are (reads.ts). A request with an Idempotency-Key goes on to the middleware,
// whose claim rides in the key's batch instead, and to the route below, which describes both.
export const presign = new Hono<AppEnv>()

presign.post('/v1/upload/presign', async (c, next) => {
  if (c.req.header(IDEMPOTENCY_HEADER) !== undefined) return next()
  const svc = c.var.svc
  const keyHash = await presentedKeyHash(c)
  const limit = keyLimit(c, keyHash)
  const { input, target, register } = await keyFirst(
    c,
    keyHash,
    async () => {
      const input = await jsonOf(c, uploadBody)
      const target = storageTarget(svc.settings, requestOrigin(c))
      return { input, target, register: presignStatement(svc, keyHash, input) }
    },
    limit,
  )
  const [registered] = await authorizeWrite(c, keyHash, [register.statement], limit)
  return c.json(await presignAnswer(svc, registered, register.fileId, input, target))
})

upload.post(
  '/presign',
  jsonBody(uploadBody),
  documented({
    summary: 'Start an upload',
    description:
      'Registers the content by its SHA-256 and answers a signed URL to PUT the bytes to, with ' +
      'the headers to send; `exists: true` when the workspace already holds them (no PUT ' +
      'needed; a PUT answered 412 means they arrived meanwhile). Then call finalize with the ' +
      'same body.',
    tag: 'Uploads',
    auth: 'key',
    responses: { 200: { description: 'Where to send the bytes.', schema: shapes.presign } },
    errors: ['payload_too_large', 'storage_not_configured'],
  }),
  async (c) => {
    const body = c.req.valid('json')
    const target = storageTarget(c.var.svc.settings, requestOrigin(c))
    // A replayed presign must hold a usable upload_url: replayed for half of the URL's life, so it
    // has at least the other half left; later, a repeat signs a new URL (presign has no effect a
    // repeat would duplicate: the content's row and file_id are the same each time).
    keepAnswerFor(c, (c.var.svc.settings.uploadUrlTtl * 1000) / 2)
    return c.json(await presignUpload(c.var.svc, c.var.auth, body, target))
  },
)

upload.post(
  '/finalize',
  jsonBody(uploadBody),
  documented({
    summary: 'Finish an upload',
    description:
      'Checks the stored bytes against the declared size and SHA-256; the file can then make ' +
      'canvases and versions. Finalizing again answers the same file (`reused: true`).',
    tag: 'Uploads',
    auth: 'key',
    responses: { 200: { description: 'The file.', schema: shapes.finalized } },
    errors: ['file_not_found', 'upload_incomplete', 'checksum_mismatch', 'payload_too_large'],
  }),
  async (c) => {
    const body = c.req.valid('json')
    return c.json(await finalizeUpload(c.var.svc, c.var.auth, body))
  },
)
