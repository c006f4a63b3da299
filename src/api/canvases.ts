import { Hono } from 'hono'
import { createCanvas, deleteCanvas, makePermanent, updateCanvas } from '../domain/canvases'
import { findContent, listVersions } from '../domain/canvas-reads'
import { signedDownload } from '../domain/downloads'
import { storageTarget } from '../storage/target'
import {
  canvasIdParam,
  itemPathParam,
  requestOrigin,
  type AppContext,
  type AppEnv,
} from '../http/context'
import { archiveResponse } from '../http/archive'
import { findItem, listVersionItems } from '../domain/site-reads'
import { canvasBody } from './multipart'
import {
  createCanvasBody,
  downloadQuery,
  type DownloadQuery,
  updateCanvasBody,
  versionParam,
  versionsQuery,
} from '../schema/requests'
import { documented } from '../http/route-docs'
import { parse, query } from '../http/validate'
import * as shapes from '../schema/responses'

export const canvases = new Hono<AppEnv>()

canvases.post(
  '/',
  canvasBody(createCanvasBody, 'create'),
  documented({
    summary: 'Create a canvas',
    description:
      'From a finalized file (`file_id`), or in one request as multipart/form-data with the ' +
      'content as a part named `file` (up to the direct upload limit). A canvas expires unless ' +
      'made permanent.',
    tag: 'Canvases',
    auth: 'key',
    responses: { 201: { description: 'The new canvas, at version 1.', schema: shapes.canvas } },
    errors: ['file_not_found', 'upload_incomplete', 'payload_too_large'],
  }),
  async (c) => {
    const body = c.req.valid('json')
    return c.json(await createCanvas(c.var.svc, c.var.auth, body), 201)
  },
)

canvases.patch(
  '/:id',
  canvasBody(updateCanvasBody, 'update'),
  documented({
    summary: 'Update a canvas',
    description:
      'New content (`file_id`, or a multipart `file` part) makes a new version, even when the ' +
      'bytes equal an earlier one; `title`, `visibility` and `renderer_id` change in place.',
    tag: 'Canvases',
    auth: 'key',
    responses: { 200: { description: 'The canvas as updated.', schema: shapes.canvas } },
    errors: ['canvas_not_found', 'file_not_found', 'upload_incomplete', 'payload_too_large'],
  }),
  async (c) => {
    const body = c.req.valid('json')
    return c.json(await updateCanvas(c.var.svc, c.var.auth, canvasIdParam(c), body))
  },
)

canvases.delete(
  '/:id',
  documented({
    summary: 'Delete a canvas',
    description: 'With its versions and share links.',
    tag: 'Canvases',
    auth: 'key',
    responses: { 200: { description: 'Deleted.', schema: shapes.success } },
    errors: ['canvas_not_found'],
  }),
  async (c) => {
    await deleteCanvas(c.var.svc, c.var.auth, canvasIdParam(c))
    return c.json({ success: true })
  },
)

canvases.post(
  '/:id/permanent',
  documented({
    summary: 'Make a canvas permanent',
    description: 'It no longer expires. Doing it again changes nothing.',
    tag: 'Canvases',
    auth: 'key',
    responses: { 200: { description: 'The canvas, `expires_at: null`.', schema: shapes.canvas } },
    errors: ['canvas_not_found'],
  }),
  async (c) => {
    return c.json(await makePermanent(c.var.svc, c.var.auth, canvasIdParam(c)))
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
  query(downloadQuery),
  documented({
    summary: 'Download the latest version',
    description: '`dl=1` asks for an attachment rather than inline display.',
    tag: 'Versions and content',
    auth: 'key',
    responses: REDIRECT,
    errors: ['canvas_not_found', 'storage_not_configured'],
  }),
  async (c) => download(c, c.req.valid('query')),
)

canvases.get(
  '/:id/versions',
  query(versionsQuery),
  documented({
    summary: 'List versions',
    description:
      'Newest first: every version, or with `limit` (1 to 1000) a page of them with ' +
      '`next_cursor` (null on the last page), passed back as `cursor` for the next.',
    tag: 'Versions and content',
    auth: 'key',
    responses: { 200: { description: 'The versions.', schema: shapes.versionList } },
    errors: ['canvas_not_found'],
  }),
  async (c) => {
    const page = c.req.valid('query')
    return c.json(await listVersions(c.var.svc, c.var.auth, canvasIdParam(c), page))
  },
)

canvases.get(
  '/:id/versions/:version',
  query(downloadQuery),
  documented({
    summary: 'Download a version',
    tag: 'Versions and content',
    auth: 'key',
    responses: REDIRECT,
    errors: ['canvas_not_found', 'version_not_found', 'storage_not_configured'],
  }),
  async (c) => {
    return download(c, c.req.valid('query'), parse(versionParam, c.req.param('version')))
  },
)

canvases.get(
  '/:id/content/:path{.+}',
  query(downloadQuery),
  documented({
    summary: 'Download a file of a site',
    description:
      'The file at `path` (relative, `/`-separated, percent-encoded as in any URL) in the ' +
      'latest version; for a single file, its path is `index.<ext>`.',
    tag: 'Versions and content',
    auth: 'key',
    responses: REDIRECT,
    errors: ['canvas_not_found', 'not_found', 'storage_not_configured'],
  }),
  async (c) => download(c, c.req.valid('query'), undefined, itemPathParam(c)),
)

canvases.get(
  '/:id/versions/:version/content/:path{.+}',
  query(downloadQuery),
  documented({
    summary: 'Download a file of a version',
    tag: 'Versions and content',
    auth: 'key',
    responses: REDIRECT,
    errors: ['canvas_not_found', 'version_not_found', 'not_found', 'storage_not_configured'],
  }),
  async (c) => {
    const version = parse(versionParam, c.req.param('version'))
    return download(c, c.req.valid('query'), version, itemPathParam(c))
  },
)

canvases.get(
  '/:id/versions/:version/items',
  documented({
    summary: 'List the files of a version',
    description:
      'Every file of the version by path, with its `main` path: a single file is the one item ' +
      '`index.<ext>`. Sending these `items` and `main` back as an update brings the version back.',
    tag: 'Versions and content',
    auth: 'key',
    responses: { 200: { description: 'The version’s files.', schema: shapes.versionItemList } },
    errors: ['canvas_not_found', 'version_not_found'],
  }),
  async (c) => {
    const version = parse(versionParam, c.req.param('version'))
    return c.json(await listVersionItems(c.var.svc, c.var.auth, canvasIdParam(c), version))
  },
)

canvases.get(
  '/:id/versions/:version/archive',
  documented({
    summary: 'Download a version as a zip',
    description:
      'Every file of the version at its path, streamed as it is read from storage (files are ' +
      'stored, not compressed).',
    tag: 'Versions and content',
    auth: 'key',
    responses: {
      200: { description: 'The zip archive (`application/zip`), as an attachment.' },
    },
    errors: ['canvas_not_found', 'version_not_found', 'payload_too_large'],
  }),
  async (c) => {
    const version = parse(versionParam, c.req.param('version'))
    return archiveResponse(c.var.svc, c.var.auth, canvasIdParam(c), version)
  },
)

async function download(c: AppContext, { dl }: DownloadQuery, version?: number, path?: string) {
  const svc = c.var.svc
  const content =
    path === undefined
      ? await findContent(svc, c.var.auth, canvasIdParam(c), version)
      : await findItem(svc, c.var.auth, canvasIdParam(c), path, version)
  const target = storageTarget(svc.settings, requestOrigin(c))
  const url = await signedDownload(svc, target, content, dl === '1' || dl === 'true')
  return c.redirect(url, 302)
}
