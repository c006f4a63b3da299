import { Hono } from 'hono'
import {
  createCanvas,
  deleteCanvas,
  makePermanent,
  updateCanvas,
} from '../domain/canvases/canvases'
import {
  canvasByIdStatement,
  findContent,
  listPage,
  listStatement,
  listVersions,
  ownedCanvasDetail,
} from '../domain/canvases/reads'
import { signedDownload } from '../domain/downloads'
import { storageTarget } from '../storage/target'
import { requestOrigin, type AppContext, type AppEnv } from '../http/context'
import { key, keyInBatch } from '../http/actor/steps'
import { READ, WRITE } from '../http/actor/need'
import { archiveResponse } from '../http/archive'
import { authorize, authorizeKey } from '../http/actor/key'
import { findItem, listVersionItems } from '../domain/canvases/site-reads'
import { canvasBody } from './multipart'
import {
  canvasInPath,
  createCanvasBody,
  downloadQuery,
  type DownloadQuery,
  itemInPath,
  listQuery,
  updateCanvasBody,
  versionInPath,
  versionItemInPath,
  versionsQuery,
} from '../schema/requests'
import { documented } from '../http/route-docs'
import { params, query } from '../http/validate'

// /v1/canvases: canvases, their versions and their content. Every route's first step is its
// access (http/actor/). The list and a canvas's read check the key inside their own D1 batch,
// with the route's query: one round trip, a request's largest cost here (BENCHMARKS.md).
export const canvases = new Hono<AppEnv>()

canvases.get(
  '/',
  keyInBatch(READ),
  query(listQuery),
  documented({
    summary: 'List canvases',
    description:
      'Newest first; `limit` 1 to 100 (default 20). Each page answers `next_cursor` (null on ' +
      'the last); pass it as `cursor` for the next page, which costs what the first does at any ' +
      'depth (`offset` still works, slower the deeper it goes; not both).',
    tag: 'Canvases',
    responses: { 200: { description: 'A page of canvases.', schema: 'canvasList' } },
  }),
  async (c) => {
    const { limit = 20, offset = 0, ...filters } = c.req.valid('query')
    const page = { ...filters, limit, offset }
    // The page's statement takes its workspace from the key's own row, in the key's batch.
    const keyHash = c.var.keyCheck!.hash
    const [rows] = await authorizeKey(c, keyHash, [listStatement(c.var.svc, { keyHash }, page)])
    return c.json(listPage(rows, page))
  },
)

canvases.get(
  '/:id',
  keyInBatch(READ),
  params(canvasInPath),
  documented({
    summary: 'Get a canvas',
    description:
      'With its current file and renderer, and a site’s `items` and `main`. Another ' +
      'workspace’s canvas is not found.',
    tag: 'Canvases',
    responses: { 200: { description: 'The canvas.', schema: 'canvasDetail' } },
    errors: ['canvas_not_found'],
  }),
  async (c) => {
    const { id } = c.req.valid('param')
    const [canvas] = await authorize(c, canvasByIdStatement(c.var.svc, id))
    return c.json(ownedCanvasDetail(canvas, c.var.actor))
  },
)

canvases.post(
  '/',
  key(WRITE),
  canvasBody(createCanvasBody, 'create'),
  documented({
    summary: 'Create a canvas',
    description:
      'From a finalized file (`file_id`), or in one request as multipart/form-data with the ' +
      'content as a part named `file` (up to the direct upload limit). A canvas expires unless ' +
      'made permanent.',
    tag: 'Canvases',
    responses: { 201: { description: 'The new canvas, at version 1.', schema: 'canvas' } },
    errors: ['file_not_found', 'upload_incomplete', 'payload_too_large'],
  }),
  async (c) => {
    const body = c.req.valid('json')
    return c.json(await createCanvas(c.var.svc, c.var.actor, body), 201)
  },
)

canvases.patch(
  '/:id',
  key(WRITE),
  params(canvasInPath),
  canvasBody(updateCanvasBody, 'update'),
  documented({
    summary: 'Update a canvas',
    description:
      'New content (`file_id`, or a multipart `file` part) makes a new version, even when the ' +
      'bytes equal an earlier one; `title`, `visibility` and `renderer_id` change in place.',
    tag: 'Canvases',
    responses: { 200: { description: 'The canvas as updated.', schema: 'canvas' } },
    errors: ['canvas_not_found', 'file_not_found', 'upload_incomplete', 'payload_too_large'],
  }),
  async (c) => {
    const body = c.req.valid('json')
    return c.json(await updateCanvas(c.var.svc, c.var.actor, c.req.valid('param').id, body))
  },
)

canvases.delete(
  '/:id',
  key(WRITE),
  params(canvasInPath),
  documented({
    summary: 'Delete a canvas',
    description: 'With its versions and share links.',
    tag: 'Canvases',
    responses: { 200: { description: 'Deleted.', schema: 'success' } },
    errors: ['canvas_not_found'],
  }),
  async (c) => {
    await deleteCanvas(c.var.svc, c.var.actor, c.req.valid('param').id)
    return c.json({ success: true })
  },
)

canvases.post(
  '/:id/permanent',
  key(WRITE),
  params(canvasInPath),
  documented({
    summary: 'Make a canvas permanent',
    description: 'It no longer expires. Doing it again changes nothing.',
    tag: 'Canvases',
    responses: { 200: { description: 'The canvas, `expires_at: null`.', schema: 'canvas' } },
    errors: ['canvas_not_found'],
  }),
  async (c) => {
    return c.json(await makePermanent(c.var.svc, c.var.actor, c.req.valid('param').id))
  },
)

const REDIRECT = {
  302: {
    description: 'To a signed storage URL that serves the bytes for a short time.',
    headers: { Location: 'The signed URL.' },
  },
}

canvases.get(
  '/:id/content',
  key(READ, { content: true }),
  params(canvasInPath),
  query(downloadQuery),
  documented({
    summary: 'Download the latest version',
    description: '`dl=1` asks for an attachment rather than inline display.',
    tag: 'Versions and content',
    responses: REDIRECT,
    errors: ['canvas_not_found', 'storage_not_configured'],
  }),
  async (c) => download(c, c.req.valid('query'), c.req.valid('param')),
)

canvases.get(
  '/:id/versions',
  key(READ),
  params(canvasInPath),
  query(versionsQuery),
  documented({
    summary: 'List versions',
    description:
      'Newest first: every version, or with `limit` (1 to 1000) a page of them with ' +
      '`next_cursor` (null on the last page), passed back as `cursor` for the next.',
    tag: 'Versions and content',
    responses: { 200: { description: 'The versions.', schema: 'versionList' } },
    errors: ['canvas_not_found'],
  }),
  async (c) => {
    const page = c.req.valid('query')
    return c.json(await listVersions(c.var.svc, c.var.actor, c.req.valid('param').id, page))
  },
)

canvases.get(
  '/:id/versions/:version',
  key(READ, { content: true }),
  params(versionInPath),
  query(downloadQuery),
  documented({
    summary: 'Download a version',
    tag: 'Versions and content',
    responses: REDIRECT,
    errors: ['canvas_not_found', 'version_not_found', 'storage_not_configured'],
  }),
  async (c) => {
    return download(c, c.req.valid('query'), c.req.valid('param'))
  },
)

canvases.get(
  '/:id/content/:path{.+}',
  key(READ, { content: true }),
  params(itemInPath),
  query(downloadQuery),
  documented({
    summary: 'Download a file of a site',
    description:
      'The file at `path` (relative, `/`-separated, percent-encoded as in any URL) in the ' +
      'latest version; for a single file, its path is `index.<ext>`.',
    tag: 'Versions and content',
    responses: REDIRECT,
    errors: ['canvas_not_found', 'not_found', 'storage_not_configured'],
  }),
  async (c) => download(c, c.req.valid('query'), c.req.valid('param')),
)

canvases.get(
  '/:id/versions/:version/content/:path{.+}',
  key(READ, { content: true }),
  params(versionItemInPath),
  query(downloadQuery),
  documented({
    summary: 'Download a file of a version',
    tag: 'Versions and content',
    responses: REDIRECT,
    errors: ['canvas_not_found', 'version_not_found', 'not_found', 'storage_not_configured'],
  }),
  async (c) => {
    return download(c, c.req.valid('query'), c.req.valid('param'))
  },
)

canvases.get(
  '/:id/versions/:version/items',
  key(READ),
  params(versionInPath),
  documented({
    summary: 'List the files of a version',
    description:
      'Every file of the version by path, with its `main` path: a single file is the one item ' +
      '`index.<ext>`. Sending these `items` and `main` back as an update brings the version back.',
    tag: 'Versions and content',
    responses: { 200: { description: 'The version’s files.', schema: 'versionItemList' } },
    errors: ['canvas_not_found', 'version_not_found'],
  }),
  async (c) => {
    const { id, version } = c.req.valid('param')
    return c.json(await listVersionItems(c.var.svc, c.var.actor, id, version))
  },
)

canvases.get(
  '/:id/versions/:version/archive',
  key(READ, { content: true }),
  params(versionInPath),
  documented({
    summary: 'Download a version as a zip',
    description:
      'Every file of the version at its path, streamed as it is read from storage (files are ' +
      'stored, not compressed).',
    tag: 'Versions and content',
    responses: {
      200: { description: 'The zip archive (`application/zip`), as an attachment.' },
    },
    errors: ['canvas_not_found', 'version_not_found', 'payload_too_large'],
  }),
  async (c) => {
    const { id, version } = c.req.valid('param')
    return archiveResponse(c.var.svc, c.var.actor, id, version)
  },
)

/** A version's content, or one file of a site, as a redirect to its signed storage URL. */
async function download(
  c: AppContext,
  { dl }: DownloadQuery,
  { id, version, path }: { id: string; version?: number; path?: string },
) {
  const svc = c.var.svc
  const content =
    path === undefined
      ? await findContent(svc, c.var.actor, id, version)
      : await findItem(svc, c.var.actor, id, path, version)
  const target = storageTarget(svc.settings, requestOrigin(c))
  const url = await signedDownload(svc, target, content, dl === '1' || dl === 'true')
  return c.redirect(url, 302)
}
