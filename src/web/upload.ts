import { Hono, type Context } from 'hono'
import { page } from '../http/actor/steps'
import { PUBLISHING } from './needs'
import * as z from 'zod/mini'
import { requestOrigin, type SignedInEnv } from '../http/context'
import { jsonBody, jsonOf, parse, readFormBytes } from '../http/validate'
import { createCanvasBody, id, title, uploadBody } from '../schema/requests'
import { finalizeUpload, presignUpload } from '../domain/files'
import { publish, publishFile, publishItems } from '../domain/canvases/publish'
import { AppError } from '../lib/errors'
import { formatSize } from '../lib/format'
import { storageTarget } from '../storage/target'
import { quoted, setFlash } from './flash'
import { checkCsrf, checkedHeader, limitBySession } from './session'

// Publishing from the browser. With JavaScript the bytes go straight to storage, as the CLI's do
// (presign, PUT with progress, finish), so the Worker never holds a large upload; without it, a
// plain form post up to MAX_DIRECT_UPLOAD_BYTES. Either way the file is a new canvas, or a new
// version of `canvas_id`, and the person lands on its page with a message saying which. A folder
// dropped on the page is a site, as `svc push <folder>` makes one: each file presigned, sent and
// finalized on its own, then one finish with the list of paths.
export const upload = new Hono<SignedInEnv>()

/** A file's finish: what was presigned, its name, and the canvas it is a new version of. */
export const fileFinish = z.extend(uploadBody, { name: z.string(), canvas_id: z.optional(id) })
const siteFinish = z.strictObject({
  name: z.string(),
  canvas_id: z.optional(id),
  items: z.nonoptional(createCanvasBody.shape.items),
  main: createCanvasBody.shape.main,
})

upload.post(
  '/presign',
  page(PUBLISHING),
  limitBySession,
  checkedHeader,
  jsonBody(uploadBody),
  async (c) => {
    const target = storageTarget(c.var.svc.settings, requestOrigin(c))
    const actor = c.var.actor
    return c.json(await presignUpload(c.var.svc, actor, c.req.valid('json'), target))
  },
)

// One file of a site, its bytes sent: checked against what was presigned, then ready to be listed.
upload.post(
  '/finalize',
  page(PUBLISHING),
  limitBySession,
  checkedHeader,
  jsonBody(uploadBody),
  async (c) => {
    const { svc, session } = c.var
    const { file } = await finalizeUpload(svc, c.var.actor, c.req.valid('json'))
    return c.json({ file_id: file.file_id })
  },
)

// A file (its hash and type), or a site (`items`: the paths of files finalized above).
upload.post('/finish', page(PUBLISHING), limitBySession, checkedHeader, async (c) => {
  const body: unknown = await jsonOf(c, z.unknown())
  const site = typeof body === 'object' && body !== null && 'items' in body
  return site ? finishSite(c, parse(siteFinish, body)) : finishFile(c, parse(fileFinish, body))
})

async function finishFile(c: Context<SignedInEnv>, body: z.output<typeof fileFinish>) {
  const { name, canvas_id: canvasId, ...stored } = body
  const { svc, session } = c.var
  const actor = c.var.actor
  const { file, reused } = await finalizeUpload(svc, actor, stored)
  const canvas = await publishFile(
    svc,
    actor,
    { fileId: file.file_id, ext: stored.ext, name: titleOf(name) },
    { canvasId },
  )
  await published(c, canvas, Boolean(canvasId), reused)
  return c.json({ location: `/c/${canvas.canvas_id}` })
}

async function finishSite(c: Context<SignedInEnv>, body: z.output<typeof siteFinish>) {
  const { svc, session } = c.var
  const canvasId = body.canvas_id
  const canvas = await publishItems(
    svc,
    c.var.actor,
    { items: body.items, main: body.main, name: titleOf(body.name) },
    { canvasId },
  )
  const files = body.items.length === 1 ? '1 file' : `${body.items.length} files`
  const what = canvasId
    ? `${quoted(canvas.title)} is now at version ${canvas.version}, a site of ${files}.`
    : `${quoted(canvas.title)} is published: a site of ${files}.`
  await setFlash(c, { tone: 'ok', text: what })
  return c.json({ location: `/c/${canvas.canvas_id}` })
}

// Without JavaScript: multipart/form-data with the CSRF token among its fields. What it refuses
// comes back as a page saying why, with the status the API would give; nothing is stored.
upload.post('/', page(PUBLISHING), limitBySession, async (c) => {
  const { svc, session } = c.var
  const form = await readUploadForm(c)
  const token = form.get('_csrf')
  await checkCsrf(c.var, typeof token === 'string' ? token : null)
  const rawId = form.get('canvas_id')
  if (rawId !== null && (typeof rawId !== 'string' || !id.safeParse(rawId).success)) {
    throw new AppError('canvas_not_found', 'canvas not found')
  }
  const canvasId = rawId ?? undefined
  const file = form.get('file') as File | string | null
  if (file === null || typeof file === 'string' || (file.size === 0 && file.name === '')) {
    throw new AppError('invalid_request', 'Choose a file to publish.')
  }
  if (file.size > svc.settings.maxDirectUploadBytes) throw tooLargeForPage(svc.settings)
  const canvas = await publish(svc, c.var.actor, {
    bytes: new Uint8Array(await file.arrayBuffer()),
    filename: file.name,
    // A new version keeps its canvas's title.
    title: canvasId ? undefined : titleOf(file.name),
    canvasId,
  })
  await published(c, canvas, Boolean(canvasId), false)
  return c.redirect(`/c/${canvas.canvas_id}`)
})

async function readUploadForm(c: Context<SignedInEnv>) {
  const bytes = await readFormBytes(c).catch((err) => {
    if (!(err instanceof AppError) || err.code !== 'payload_too_large') throw err
    throw tooLargeForPage(c.var.svc.settings)
  })
  try {
    return await new Response(bytes, {
      headers: { 'Content-Type': c.req.header('Content-Type') ?? '' },
    }).formData()
  } catch {
    throw new AppError('invalid_request', 'The upload could not be read: send it from the form.')
  }
}

function tooLargeForPage(settings: { maxDirectUploadBytes: number }) {
  return new AppError(
    'payload_too_large',
    `The file is over ${formatSize(settings.maxDirectUploadBytes)}, the most a page sends ` +
      'without JavaScript. Turn JavaScript on to send it straight to storage, or push it with svc.',
  )
}

/** A file's name as a canvas title: a title's rules hold for names that do not (too long, empty). */
function titleOf(name: string) {
  const cleaned = [...name.replace(/[\p{Cc}]/gu, '')].slice(0, 200).join('')
  return title.safeParse(cleaned).success ? cleaned : 'untitled'
}

async function published(
  c: Context<SignedInEnv>,
  canvas: { title: string; version: number },
  newVersion: boolean,
  reused: boolean,
) {
  const what = newVersion
    ? `${quoted(canvas.title)} is now at version ${canvas.version}.`
    : `${quoted(canvas.title)} is published.`
  const note = reused ? ' The same file was stored already, so it was not sent again.' : ''
  await setFlash(c, { tone: 'ok', text: what + note })
}
