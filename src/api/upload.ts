import { Hono } from 'hono'
import { finalizeUpload, presignUpload } from '../domain/files'
import { storageTarget } from '../storage/target'
import { requestOrigin, type AppEnv } from '../http/context'
import { uploadBody } from '../http/schemas'
import { jsonBody } from '../http/validate'

export const upload = new Hono<AppEnv>()

upload.post('/presign', jsonBody(uploadBody), async (c) => {
  const body = c.req.valid('json')
  const target = storageTarget(c.var.svc.settings, requestOrigin(c))
  return c.json(await presignUpload(c.var.svc, c.var.auth, body, target))
})

upload.post('/finalize', jsonBody(uploadBody), async (c) => {
  const body = c.req.valid('json')
  return c.json(await finalizeUpload(c.var.svc, c.var.auth, body))
})
