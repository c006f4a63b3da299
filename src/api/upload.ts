import { Hono } from 'hono'
import { finalizeUpload, presignUpload } from '../domain/files'
import { storageTarget } from '../storage/target'
import { requestOrigin, type AppEnv } from '../http/context'
import { uploadBody } from '../http/schemas'
import { readJson } from '../http/validate'

export const upload = new Hono<AppEnv>()

upload.post('/presign', async (c) => {
  const body = await readJson(c, uploadBody)
  const target = storageTarget(c.var.svc.settings, requestOrigin(c))
  return c.json(await presignUpload(c.var.svc, c.var.auth, body, target))
})

upload.post('/finalize', async (c) => {
  const body = await readJson(c, uploadBody)
  return c.json(await finalizeUpload(c.var.svc, c.var.auth, body))
})
