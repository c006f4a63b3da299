import { Hono } from 'hono'
import { page } from '../../http/actor/steps'
import { READ } from '../../http/actor/need'
import { CHANGING } from '../needs'
import { checkedBy } from '../../http/actor/steps'
import { requestOrigin, type AppEnv } from '../../http/context'
import { params } from '../../http/validate'
import { clientKey, limit, limitByIp } from '../../http/limits'
import { canvasInPath } from '../../schema/requests'
import { findVersionContent, findViewable } from '../../domain/canvases/reads'
import { publicVersion } from '../../domain/reviews/gate'
import { countRead } from '../../http/views'
import { signedDownload } from '../../domain/downloads'
import { archiveResponse } from '../../http/archive'
import { chargeDownload } from '../../domain/archives/budget'
import { AppError } from '../../lib/errors'
import { storageTarget } from '../../storage/target'
import { canvasActions } from './actions'
import { reviewForms } from './reviews'
import { ownerComments } from './comments'
import { ownerPage, ownerVersionParts, pickVersion } from './owner-page'
import { changesFrameUrl, frameUrls, liveUrl } from '../frames/links'
import { ConfirmDelete } from './confirm-delete'
import { DIFF_VIEWS, DiffPage, type DiffView } from './diff-page'
import { FullView, Viewer } from '../pages/viewer'
import { csrfToken, viewerOf } from '../session'

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
  const version = publicVersion(canvas, view.reviewRequired)
  countRead(c, { canvasId, version })
  const origin = requestOrigin(c)
  // The frame, and the page's live link, last as long as the canvas is public.
  const grant = { kind: 'public' } as const
  const frame = await frameUrls(svc, origin, { canvasId, version, grant })
  return c.html(
    <Viewer
      title={canvas.title}
      rendererId={canvas.renderer_id}
      ext={canvas.ext}
      frameSrc={frame.src}
      version={version}
      facts={[{ text: 'public', class: 'public' }]}
      downloadHref={`/c/${canvasId}/download`}
      fullHref={`/c/${canvasId}/full`}
      live={await liveUrl(svc, origin, canvasId, grant)}
      og={{ title: canvas.title, type: 'article' }}
    />,
  )
})

// The content alone, filling the window: the owner's at the version asked for, anyone else's
// while the canvas is public, at its latest. It follows new versions when it shows the latest.
// Content withdrawn (a session ended, a canvas made private, deleted or expired) is refused here
// at once, not sent on to log in: the page is opened from the canvas's own.
canvas.get('/:id/full', checkedBy('viewer', { content: true }), params(canvasInPath), async (c) => {
  const { svc, session } = c.var
  const canvasId = c.req.valid('param').id
  const view = await findViewable(svc, canvasId, session?.workspace.workspace_id ?? null)
  if (!view) throw new AppError('canvas_not_found', 'canvas not found')
  const { canvas } = view
  const owner = view.isOwner && session
  const grant = owner
    ? ({ kind: 'owner', sessionId: session.sessionId } as const)
    : ({ kind: 'public' } as const)
  const latest = owner ? canvas.version : publicVersion(canvas, view.reviewRequired)
  const version = owner ? pickVersion(c.req.query('v'), latest) : latest
  const origin = requestOrigin(c)
  const frame = await frameUrls(svc, origin, { canvasId, version, grant })
  const follows = version === latest
  return c.html(
    <FullView
      title={canvas.title}
      rendererId={canvas.renderer_id}
      ext={canvas.ext}
      frameSrc={frame.src}
      version={version}
      live={follows ? await liveUrl(svc, origin, canvasId, grant) : undefined}
      og={owner ? undefined : { title: canvas.title, type: 'article' }}
    />,
  )
})

// The parts of the owner's page that name versions (its script fetches them as a version lands).
canvas.get('/:id/parts', page(READ), params(canvasInPath), async (c) => {
  const { svc, session } = c.var
  const view = await findViewable(svc, c.req.valid('param').id, session.workspace.workspace_id)
  if (!view?.isOwner) throw new AppError('canvas_not_found', 'canvas not found')
  return ownerVersionParts(c, session, view)
})

// A download may be a site's whole version as a zip, streamed through the Worker: bounded per client.
canvas.get(
  '/:id/download',
  checkedBy('viewer', { content: true }),
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
    // A visitor downloads what a visitor sees: the latest version, or the approved one.
    const version = view.isOwner
      ? pickVersion(c.req.query('v'), view.canvas.version)
      : publicVersion(view.canvas, view.reviewRequired)
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
      // The version's own type: an older (or approved) version's may not be the latest's.
      { blobKey: content.blob_key, title: view.canvas.title, ext: content.ext },
      true,
    )
    return c.redirect(url, 302)
  },
)

canvas.get('/:id/delete', page(CHANGING), params(canvasInPath), async (c) => {
  const { svc, session } = c.var
  const view = await findViewable(svc, c.req.valid('param').id, session.workspace.workspace_id)
  if (!view?.isOwner) throw new AppError('canvas_not_found', 'canvas not found')
  return c.html(
    <ConfirmDelete
      user={viewerOf(session)}
      csrf={await csrfToken(svc, session)}
      canvas={view.canvas}
    />,
  )
})

// The costliest page an owner can ask for: each diff is bounded by its work, and a session gets a
// budget of them (DIFF_LIMITER), so a script holding a session cannot keep an isolate busy. Its
// rendered view is a content frame, which draws on the same budget.
canvas.get('/:id/diff', page(READ), params(canvasInPath), async (c) => {
  const { svc, session } = c.var
  await limit(c.env.DIFF_LIMITER, `session:${session.sessionId}`)
  const canvasId = c.req.valid('param').id
  const view = await findViewable(svc, canvasId, session.workspace.workspace_id)
  if (!view?.isOwner) throw new AppError('canvas_not_found', 'canvas not found')
  const from = versionParam(c.req.query('from'), view.canvas.version, 'from')
  const to = versionParam(c.req.query('to'), view.canvas.version, 'to')
  const shown = viewParam(c.req.query('view'))
  // The diff library loads with the first comparison, not with the Worker.
  const { diffVersions } = await import('../../domain/diff/diff')
  const diff = await diffVersions(svc, c.var.actor, canvasId, from, to)
  const rendered = shown === 'rendered' && diff.kind === 'diff' && diff.rendered !== null
  const grant = { kind: 'owner', sessionId: session.sessionId } as const
  return c.html(
    <DiffPage
      user={viewerOf(session)}
      csrf={await csrfToken(svc, session)}
      canvas={view.canvas}
      diff={diff}
      view={shown}
      renderedSrc={
        rendered
          ? await changesFrameUrl(svc, requestOrigin(c), canvasId, { from, to }, grant)
          : null
      }
    />,
  )
})

canvas.route('/', canvasActions)
canvas.route('/', reviewForms)
canvas.route('/:id/comments', ownerComments)

/**
 * A version the canvas has (its versions are 1 to its current one: they never skip): 400 for
 * what cannot be one, 404 for one it does not have, each said as the page's reader would.
 */
function versionParam(raw: string | undefined, current: number, name: 'from' | 'to') {
  const which = name === 'from' ? 'The version to compare from' : 'The version to compare with'
  if (!/^[1-9]\d{0,8}$/.test(raw ?? '')) {
    throw new AppError('invalid_request', `${which} must be a version number, such as 1.`)
  }
  const wanted = Number(raw)
  if (wanted > current) {
    const has = current === 1 ? 'only version 1' : `versions 1 to ${current}`
    throw new AppError(
      'version_not_found',
      `There is no version ${wanted}: this canvas has ${has}.`,
    )
  }
  return wanted
}

/** How the diff page shows the changes: as asked, or (none asked) by the width of the screen. */
function viewParam(raw: string | undefined): DiffView | null {
  if (raw === undefined || raw === '') return null
  if (!DIFF_VIEWS.includes(raw as DiffView)) {
    throw new AppError('invalid_request', `view: must be one of ${DIFF_VIEWS.join(', ')}`)
  }
  return raw as DiffView
}
