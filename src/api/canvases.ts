import { Hono } from 'hono'
import {
  createCanvas,
  deleteCanvas,
  findContent,
  listCanvases,
  listVersions,
  makePermanent,
  updateCanvas,
} from '../domain/canvases'
import { signedDownload } from '../domain/downloads'
import { storageTarget } from '../storage/target'
import { canvasIdParam, requestOrigin, type AppContext, type AppEnv } from '../http/context'
import { readMultipart } from './multipart'
import {
  createCanvasBody,
  downloadQuery,
  listQuery,
  updateCanvasBody,
  versionParam,
} from '../http/schemas'
import { mediaType, parse, parseQuery, readJson } from '../http/validate'

export const canvases = new Hono<AppEnv>()

canvases.post('/', async (c) => {
  const body = isMultipart(c)
    ? await readMultipart(c, createCanvasBody, 'create')
    : await readJson(c, createCanvasBody)
  return c.json(await createCanvas(c.var.svc, c.var.auth, body), 201)
})

canvases.get('/', async (c) => {
  const { limit = 20, offset = 0, ...filters } = parseQuery(c, listQuery)
  return c.json(await listCanvases(c.var.svc, c.var.auth, { ...filters, limit, offset }))
})

canvases.patch('/:id', async (c) => {
  const body = isMultipart(c)
    ? await readMultipart(c, updateCanvasBody, 'update')
    : await readJson(c, updateCanvasBody)
  return c.json(await updateCanvas(c.var.svc, c.var.auth, canvasIdParam(c), body))
})

canvases.delete('/:id', async (c) => {
  await deleteCanvas(c.var.svc, c.var.auth, canvasIdParam(c))
  return c.json({ success: true })
})

canvases.post('/:id/permanent', async (c) => {
  return c.json(await makePermanent(c.var.svc, c.var.auth, canvasIdParam(c)))
})

canvases.get('/:id/content', async (c) => {
  return download(c)
})

canvases.get('/:id/versions', async (c) => {
  return c.json({ versions: await listVersions(c.var.svc, c.var.auth, canvasIdParam(c)) })
})

canvases.get('/:id/versions/:version', async (c) => {
  return download(c, parse(versionParam, c.req.param('version')))
})

async function download(c: AppContext, version?: number) {
  const { dl } = parseQuery(c, downloadQuery)
  const content = await findContent(c.var.svc, c.var.auth, canvasIdParam(c), version)
  const target = storageTarget(c.var.svc.settings, requestOrigin(c))
  const url = await signedDownload(c.var.svc, target, content, dl === '1' || dl === 'true')
  return c.redirect(url, 302)
}

function isMultipart(c: AppContext) {
  return mediaType(c) === 'multipart/form-data'
}
