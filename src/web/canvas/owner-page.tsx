import type { Context } from 'hono'
import { requestOrigin, type AppEnv } from '../../http/context'
import type { findViewable } from '../../domain/canvases/reads'
import { sharesOf } from '../../domain/shares/shares'
import { listComments } from '../../domain/comments/comments'
import { listReviews } from '../../domain/reviews/reviews'
import { canvasGlance } from '../../domain/views/views'
import { versionItemList } from '../../domain/canvases/site-reads'
import { type SessionInfo } from '../../domain/users'
import type { Services } from '../../domain/services'
import { takeFlash } from '../flash'
import { countRead } from '../../http/views'
import { frameUrls, liveUrl } from '../frames/links'
import { CanvasPage, VersionParts } from './canvas-page'
import type { ShareDraft } from './share-dialog'
import { csrfToken, viewerOf } from '../session'
import { may } from '../../http/actor/need'
import { CHANGING } from '../needs'

// Renderers whose content is text, so that two versions can be compared line by line.
const TEXT_RENDERERS = new Set(['html', 'markdown', 'code', 'json', 'csv', 'text'])

type Viewable = NonNullable<Awaited<ReturnType<typeof findViewable>>>

/** The owner's page; also answers a share form that came back with an error (`draft`). */
export async function ownerPage<E extends AppEnv>(
  c: Context<E>,
  session: SessionInfo,
  view: Viewable,
  draft?: ShareDraft,
) {
  const { svc } = c.var
  const { canvas } = view
  const shown = pickVersion(c.req.query('v'), canvas.version)
  // A share form that came back with an error shows the page again: read once already.
  if (!draft) {
    countRead(c, { canvasId: canvas.canvas_id, version: shown, member: session.user.user_id })
  }
  const origin = requestOrigin(c)
  // The frame, and the page's live link, last as long as the owner's session.
  const grant = { kind: 'owner', sessionId: session.sessionId } as const
  const place = { workspaceId: session.workspace.workspace_id, canvasId: canvas.canvas_id }
  const change = may(c.var.actor, CHANGING)
  const counting = svc.settings.viewAnalytics
  const [parts, live, links, csrf, comments, reviews, glance] = await Promise.all([
    versionParts(svc, origin, session, view, shown),
    liveUrl(svc, origin, canvas.canvas_id, grant),
    // A viewer is shown no share link (nor any control that changes the canvas).
    change ? sharesOf(svc, c.var.actor, canvas.canvas_id) : { shares: [], requireReview: false },
    csrfToken(svc, session),
    listComments(svc, place, { status: 'open' }),
    view.reviewed ? listReviews(svc, c.var.actor, canvas.canvas_id) : [],
    // A canvas nobody has read has no days to read.
    counting && view.viewed
      ? canvasGlance(svc, c.var.actor, canvas.canvas_id, canvas.version)
      : undefined,
  ])
  const flash = draft ? undefined : await takeFlash(c, { svc, session })
  return c.html(
    <CanvasPage
      {...parts}
      title={canvas.title}
      rendererId={canvas.renderer_id}
      ext={canvas.ext}
      user={viewerOf(session)}
      csrf={csrf}
      shares={links.shares}
      origin={origin}
      author={canvas.author}
      can={{ change }}
      flash={flash}
      shareDraft={draft}
      shareOpen={c.req.query('share') === 'new'}
      limits={{
        direct: svc.settings.maxDirectUploadBytes,
        file: svc.settings.maxFileBytes,
        siteItems: svc.settings.maxSiteItems,
      }}
      live={live}
      requireReview={links.requireReview}
      reviews={{
        canvasId: canvas.canvas_id,
        csrf,
        reviews,
        approvedVersion: canvas.approved_version,
        versions: view.versions.map((v) => v.version),
        mayRequest: change,
        actor: c.var.actor,
        flash,
      }}
      readers={{
        enabled: counting,
        glance,
        latest: canvas.version,
        mayShare: change,
        now: svc.now(),
      }}
      comments={{
        base: `/c/${canvas.canvas_id}/comments`,
        comments,
        shown,
        owner: true,
        moderate: change,
        csrf,
      }}
    />,
    draft?.status ?? 200,
  )
}

/**
 * The parts of the owner's page that name versions, showing the version in `?v=` (else the
 * current one): what the page's script puts in place when a new version lands, so the page says
 * what it shows. Never the message of an action (it stays for the next page).
 */
export async function ownerVersionParts<E extends AppEnv>(
  c: Context<E>,
  session: SessionInfo,
  view: Viewable,
) {
  const shown = pickVersion(c.req.query('v'), view.canvas.version)
  const parts = await versionParts(c.var.svc, requestOrigin(c), session, view, shown)
  return c.html(<VersionParts {...parts} />)
}

async function versionParts(
  svc: Services,
  origin: string,
  session: SessionInfo,
  view: Viewable,
  shown: number,
) {
  const { canvas, versions } = view
  const grant = { kind: 'owner', sessionId: session.sessionId } as const
  const [frame, site] = await Promise.all([
    frameUrls(svc, origin, { canvasId: canvas.canvas_id, version: shown, grant }),
    versionItemList(svc, canvas.canvas_id, shown),
  ])
  return {
    canvas,
    shown,
    versions,
    frameSrc: frame.src,
    textual: TEXT_RENDERERS.has(canvas.renderer_id) || canvas.ext === 'svg',
    site: site.files.length > 1 ? { ...site, base: frame.site } : undefined,
  }
}

/** The version asked for, if the canvas has it (its versions are 1 to the current), else the current. */
export function pickVersion(raw: string | undefined, current: number) {
  const wanted = Number(raw)
  return Number.isInteger(wanted) && wanted >= 1 && wanted <= current ? wanted : current
}
