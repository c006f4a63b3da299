import { Hono } from 'hono'
import { checkedBy } from '../http/access'
import { requestOrigin, type AppEnv } from '../http/context'
import { params } from '../http/validate'
import { clientKey, limit, limitByIp } from '../http/limits'
import { canvasInPath } from '../schema/requests'
import { findVersionContent, findViewable } from '../domain/canvas-reads'
import { diffVersions } from '../domain/diff'
import { signedDownload } from '../domain/downloads'
import { sessionActor } from '../domain/users'
import { archiveResponse } from '../http/archive'
import { chargeDownload } from '../domain/download-budget'
import { AppError } from '../lib/errors'
import { storageTarget } from '../storage/target'
import { canvasActions } from './canvas-actions'
import { ownerPage, pickVersion } from './owner-page'
import { frameUrls, liveUrl } from './frame-links'
import { ConfirmDelete } from './pages/confirm-delete'
import { DiffPage } from './pages/diff'
import { Viewer } from './pages/viewer'
import { csrfToken, signedIn } from './session'

// /c/:id: one canvas. Its owner gets its page, with every tool; anyone sees it while it is public,
// at its latest version and with no owner's tools.
export const canvas = new Hono<AppEnv>()

canvas.get('/:id', checkedBy('viewer'), params(canvasInPath), async (c) => {
  const { svc, session } = c.var
  const canvasId = c.req.valid('param').id
  const view = await findViewable(svc, canvasId, session?.workspace.workspace_id ?? null)
  if (!view) {
    if (!session) return c.redirect(`/login?next=${encodeURIComponent(`/c/${canvasId}`)}`)
    throw new AppError('canvas_not_found', 'canvas not found')
  }
  if (view.isOwner && session) return ownerPage(c, session, view)
  const { canvas } = view
  const origin = requestOrigin(c)
  // The frame, and the page's live link, last as long as the canvas is public.
  const grant = { kind: 'public' } as const
  const frame = await frameUrls(svc, origin, { canvasId, version: canvas.version, grant })
  return c.html(
    <Viewer
      title={canvas.title}
      rendererId={canvas.renderer_id}
      ext={canvas.ext}
      frameSrc={frame.src}
      version={canvas.version}
      facts={['public']}
      downloadHref={`/c/${canvasId}/download`}
      live={await liveUrl(svc, origin, canvasId, grant)}
      og={{ title: canvas.title, type: 'article' }}
    />,
  )
})

// A download may be a site's whole version as a zip, streamed through the Worker: bounded per client.
canvas.get(
  '/:id/download',
  checkedBy('viewer'),
  params(canvasInPath),
  limitByIp('FRAME_LIMITER'),
  async (c) => {
    const { svc, session } = c.var
    const view = await findViewable(
      svc,
      c.req.valid('param').id,
      session?.workspace.workspace_id ?? null,
    )
    if (!view) throw new AppError('canvas_not_found', 'canvas not found')
    // A visitor downloads what a visitor sees: the latest version.
    const version = view.isOwner
      ? pickVersion(c.req.query('v'), view.canvas.version)
      : view.canvas.version
    const content = await findVersionContent(svc, view.canvas.canvas_id, version)
    if (!content) throw new AppError('version_not_found', 'version not found')
    if (content.item_count > 1) {
      // A visitor's archives come out of a budget per client: what they can make the service send
      // is bounded by the hour, not by how often they ask.
      const charge = view.isOwner
        ? undefined
        : async (bytes: number) =>
            chargeDownload(svc, await clientKey(c), bytes, svc.settings.publicArchiveBytesPerHour)
      return archiveResponse(svc, null, view.canvas.canvas_id, version, charge)
    }
    const target = storageTarget(svc.settings, requestOrigin(c))
    const url = await signedDownload(
      svc,
      target,
      { blobKey: content.blob_key, ...view.canvas },
      true,
    )
    return c.redirect(url, 302)
  },
)

canvas.get('/:id/delete', signedIn, params(canvasInPath), async (c) => {
  const { svc, session } = c.var
  const view = await findViewable(svc, c.req.valid('param').id, session.workspace.workspace_id)
  if (!view?.isOwner) throw new AppError('canvas_not_found', 'canvas not found')
  return c.html(
    <ConfirmDelete user={session.user} csrf={await csrfToken(svc, session)} canvas={view.canvas} />,
  )
})

// The costliest page an owner can ask for: each diff is bounded by its work, and a session gets a
// budget of them (DIFF_LIMITER), so a script holding a session cannot keep an isolate busy.
canvas.get('/:id/diff', signedIn, params(canvasInPath), async (c) => {
  const { svc, session } = c.var
  await limit(c.env.DIFF_LIMITER, `session:${session.sessionId}`)
  const canvasId = c.req.valid('param').id
  const view = await findViewable(svc, canvasId, session.workspace.workspace_id)
  if (!view?.isOwner) throw new AppError('canvas_not_found', 'canvas not found')
  const from = versionParam(c.req.query('from'), view.canvas.version, 'from')
  const to = versionParam(c.req.query('to'), view.canvas.version, 'to')
  const diff = await diffVersions(svc, sessionActor(session), canvasId, from, to)
  return c.html(
    <DiffPage
      user={session.user}
      csrf={await csrfToken(svc, session)}
      canvas={view.canvas}
      diff={diff}
    />,
  )
})

canvas.route('/', canvasActions)

/** A version the canvas has: 400 for what cannot be one, 404 for one it does not have. */
/** A canvas's versions are 1 to its current one: they never skip. */
function versionParam(raw: string | undefined, current: number, name: string) {
  if (!/^[1-9]\d{0,8}$/.test(raw ?? '')) {
    throw new AppError('invalid_request', `${name}: must be a version number`)
  }
  const wanted = Number(raw)
  if (wanted > current) {
    throw new AppError('version_not_found', `${name}: the canvas has no such version`)
  }
  return wanted
}
