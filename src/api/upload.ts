import { Hono } from 'hono'
import { finalizeUpload, presignAnswer, presignStatement, presignUpload } from '../domain/files'
import { storageTarget } from '../storage/target'
import { requestOrigin, type AppEnv } from '../http/context'
import { uploadBody } from '../schema/requests'
import { key, keyInBatch } from '../http/actor/steps'
import { WRITE } from '../http/actor/need'
import { authorizeWrite } from '../http/actor/key'
import { IDEMPOTENCY_HEADER, idempotent, keepAnswerFor } from '../http/idempotency'
import { jsonBody } from '../http/validate'
import { handleError } from '../http/errors'
import { documented } from '../http/route-docs'

export const upload = new Hono<AppEnv>()

// Presign registers the content in the batch that looks up the API key: one D1 round trip. With an
// Idempotency-Key, the key's claim rides in that batch instead (http/idempotency), and the
// registration runs under it as any write does.
upload.post(
  '/presign',
  keyInBatch(WRITE),
  jsonBody(uploadBody),
  documented({
    summary: 'Start an upload',
    description:
      'Registers the content by its SHA-256 and answers a signed URL to PUT the bytes to, with ' +
      'the headers to send; `exists: true` when the workspace already holds them (no PUT ' +
      'needed; a PUT answered 412 means they arrived meanwhile). Then call finalize with the ' +
      'same body.',
    tag: 'Uploads',
    responses: { 200: { description: 'Where to send the bytes.', schema: 'presign' } },
    errors: ['payload_too_large', 'storage_not_configured'],
  }),
  async (c) => {
    const svc = c.var.svc
    const input = c.req.valid('json')
    const target = storageTarget(svc.settings, requestOrigin(c))
    const key = c.req.header(IDEMPOTENCY_HEADER)
    if (key !== undefined) {
      // A replayed presign must hold a usable upload_url: replayed for half of the URL's life, so
      // it has at least the other half left; later, a repeat signs a new URL (presign has no
      // effect a repeat would duplicate: the content's row and file_id are the same each time).
      keepAnswerFor(c, (svc.settings.uploadUrlTtl * 1000) / 2)
      const replayed = await idempotent(
        c,
        async () => {
          // As a route's own answer: an error becomes the answer, kept when worth replaying.
          try {
            c.res = c.json(await presignUpload(svc, c.var.actor, input, target))
          } catch (err) {
            c.error = err as Error
            c.res = handleError(err, c)
          }
        },
        key,
      )
      return replayed ?? c.res
    }
    const { hash, limit } = c.var.keyCheck!
    const register = presignStatement(svc, hash, input)
    const [registered] = await authorizeWrite(c, hash, [register.statement], limit)
    return c.json(
      await presignAnswer(svc, c.var.actor.workspaceId, registered, register.fileId, input, target),
    )
  },
)

upload.post(
  '/finalize',
  key(WRITE),
  jsonBody(uploadBody),
  documented({
    summary: 'Finish an upload',
    description:
      'Checks the stored bytes against the declared size and SHA-256; the file can then make ' +
      'canvases and versions. Finalizing again answers the same file (`reused: true`).',
    tag: 'Uploads',
    responses: { 200: { description: 'The file.', schema: 'finalized' } },
    errors: ['file_not_found', 'upload_incomplete', 'checksum_mismatch', 'payload_too_large'],
  }),
  async (c) => {
    const body = c.req.valid('json')
    return c.json(await finalizeUpload(c.var.svc, c.var.actor, body))
  },
)
