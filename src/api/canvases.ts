import { Hono } from 'hono'
import { createCanvas, deleteCanvas, makePermanent, updateCanvas } from '../domain/canvases'
import { findContent, listCanvases, listVersions } from '../domain/canvas-reads'
import { signedDownload } from '../domain/downloads'
import { storageTarget } from '../storage/target'
import { canvasIdParam, requestOrigin, type AppContext, type AppEnv } from '../http/context'
import { canvasBody } from './multipart'
import {
  createCanvasBody,
  downloadQuery,
  type DownloadQuery,
  listQuery,
  updateCanvasBody,
  versionParam,
} from '../http/schemas'
import { parse, query } from '../http/validate'

export const canvases = new Hono<AppEnv>()

canvases.post('/', canvasBody(createCanvasBody, 'create'), async (c) => {
  const body = c.req.valid('json')
  return c.json(await createCanvas(c.var.svc, c.var.auth, body), 201)
})

canvases.get('/', query(listQuery), async (c) => {
  const { limit = 20, offset = 0, ...filters } = c.req.valid('query')
  return c.json(await listCanvases(c.var.svc, c.var.auth, { ...filters, limit, offset }))
})

canvases.patch('/:id', canvasBody(updateCanvasBody, 'update'), async (c) => {
  const body = c.req.valid('json')
  return c.json(await updateCanvas(c.var.svc, c.var.auth, canvasIdParam(c), body))
})

canvases.delete('/:id', async (c) => {
  await deleteCanvas(c.var.svc, c.var.auth, canvasIdParam(c))
  return c.json({ success: true })
})

canvases.post('/:id/permanent', async (c) => {
  return c.json(await makePermanent(c.var.svc, c.var.auth, canvasIdParam(c)))
})

canvases.get('/:id/content', query(downloadQuery), async (c) => {
  return download(c, c.req.valid('query'))
})

canvases.get('/:id/versions', async (c) => {
  return c.json({ versions: await listVersions(c.var.svc, c.var.auth, canvasIdParam(c)) })
})

canvases.get('/:id/versions/:version', query(downloadQuery), async (c) => {
  return download(c, c.req.valid('query'), parse(versionParam, c.req.param('version')))
})

async function download(c: AppContext, { dl }: DownloadQuery, version?: number) {
  const content = await findContent(c.var.svc, c.var.auth, canvasIdParam(c), version)
  const target = storageTarget(c.var.svc.settings, requestOrigin(c))
  const url = await signedDownload(c.var.svc, target, content, dl === '1' || dl === 'true')
  return c.redirect(url, 302)
}
