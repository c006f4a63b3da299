import type { Context } from 'hono'
import { requestOrigin, type AppEnv } from '../http/context'
import type { findViewable } from '../domain/canvas-reads'
import { listShares } from '../domain/shares'
import { versionItemList } from '../domain/site-reads'
import { sessionActor, type SessionInfo } from '../domain/users'
import { takeFlash } from './flash'
import { frameUrls, liveUrl } from './frame-links'
import { CanvasPage } from './pages/canvas-page'
import type { ShareDraft } from './pages/share-dialog'
import { csrfToken } from './session'

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
  const { canvas, versions } = view
  const shown = pickVersion(c.req.query('v'), canvas.version)
  const origin = requestOrigin(c)
  // The frame, and the page's live link, last as long as the owner's session.
  const grant = { kind: 'owner', sessionId: session.sessionId } as const
  const [frame, live, shares, csrf, site] = await Promise.all([
    frameUrls(svc, origin, { canvasId: canvas.canvas_id, version: shown, grant }),
    liveUrl(svc, origin, canvas.canvas_id, grant),
    listShares(svc, sessionActor(session), canvas.canvas_id),
    csrfToken(svc, session),
    versionItemList(svc, canvas.canvas_id, shown),
  ])
  return c.html(
    <CanvasPage
      title={canvas.title}
      rendererId={canvas.renderer_id}
      ext={canvas.ext}
      frameSrc={frame.src}
      user={session.user}
      csrf={csrf}
      canvas={canvas}
      shown={shown}
      versions={versions}
      textual={TEXT_RENDERERS.has(canvas.renderer_id) || canvas.ext === 'svg'}
      shares={shares}
      origin={origin}
      flash={draft ? undefined : await takeFlash(c, { svc, session })}
      shareDraft={draft}
      limits={{ direct: svc.settings.maxDirectUploadBytes, file: svc.settings.maxFileBytes }}
      live={live}
      site={site.files.length > 1 ? { ...site, base: frame.site } : undefined}
    />,
    draft?.status ?? 200,
  )
}

/** The version asked for in `?v=`, if the canvas has it; else the current one. */
/** The version asked for, if the canvas has it (its versions are 1 to the current), else the current. */
export function pickVersion(raw: string | undefined, current: number) {
  const wanted = Number(raw)
  return Number.isInteger(wanted) && wanted >= 1 && wanted <= current ? wanted : current
}
