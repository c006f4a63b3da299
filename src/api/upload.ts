import { Hono } from 'hono'
import { finalizeUpload, presignUpload } from '../domain/files'
import { storageTarget } from '../storage/target'
import { requestOrigin, type AppEnv } from '../http/context'
import { uploadBody } from '../http/schemas'
import { keepAnswerFor } from '../http/idempotency'
import { jsonBody } from '../http/validate'

export const upload = new Hono<AppEnv>()

upload.post('/presign', jsonBody(uploadBody), async (c) => {
  const body = c.req.valid('json')
  const target = storageTarget(c.var.svc.settings, requestOrigin(c))
  // A replayed presign must hold a usable upload_url: replayed for half of the URL's life, so it
  // has at least the other half left; later, a repeat signs a new URL (presign has no effect a
  // repeat would duplicate: the content's row and file_id are the same each time).
  keepAnswerFor(c, (c.var.svc.settings.uploadUrlTtl * 1000) / 2)
  return c.json(await presignUpload(c.var.svc, c.var.auth, body, target))
})

upload.post('/finalize', jsonBody(uploadBody), async (c) => {
  const body = c.req.valid('json')
  return c.json(await finalizeUpload(c.var.svc, c.var.auth, body))
})
