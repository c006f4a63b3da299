import { Hono, type Context } from 'hono'
import { requestOrigin, type AppEnv } from '../http/context'
import { limitByIp } from '../http/limits'
import { id as idSchema } from '../schema/requests'
import { contentUnderGrant } from '../domain/frame-access'
import { AppError } from '../lib/errors'
import { isPdfFrame, renderFrame, storageRedirect } from './frame-content'
import { verifyFrame } from './frame-links'

// Content frames, mounted at FRAME_PATH. Public routes: the signature is the credential, and the
// access it names is checked again on every request.
export const frames = new Hono<AppEnv>()

frames.use('*', limitByIp('FRAME_LIMITER'))

frames.get('/:id/:version', async (c) => {
  const { content, grant } = await frameContent(c)
  if (isPdfFrame(content.renderer_id, content.ext)) {
    // Chromium refuses its PDF viewer inside a sandboxed iframe; the PDF itself is served with a
    // `Content-Security-Policy: sandbox` header (local storage) or from R2's own host instead.
    return storageRedirect(c.var.svc, requestOrigin(c), content, grant, false)
  }
  const raw = new URL(c.req.url)
  raw.pathname += '/raw'
  return renderFrame(c.var.svc, content, { appOrigin: c.req.query('app') ?? '', raw: raw.href })
})

frames.get('/:id/:version/raw', async (c) => {
  const { content, grant } = await frameContent(c)
  const attachment = c.req.query('dl') === '1'
  return storageRedirect(c.var.svc, requestOrigin(c), content, grant, attachment)
})

/** The version a frame URL shows, if its signature holds and its access still does. */
async function frameContent(c: Context<AppEnv>) {
  const { id, version } = c.req.param()
  const svc = c.var.svc
  // The id is part of the signed message: one that cannot be an id is refused before it is read.
  const grant =
    /^\d{1,9}$/.test(version ?? '') && idSchema.safeParse(id).success
      ? await verifyFrame(svc, id ?? '', version!, c.req.query())
      : null
  if (!grant) {
    throw new AppError('forbidden', 'this content link is invalid or has expired; reload the page')
  }
  return { content: await contentUnderGrant(svc, grant, id!, Number(version)), grant }
}
