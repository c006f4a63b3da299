import { Hono } from 'hono'
import { canvasIdParam, requestOrigin, type AppEnv } from '../http/context'
import { createShareBody, shareToken, updateCanvasBody } from '../schema/requests'
import { parse } from '../http/validate'
import { deleteCanvas, makePermanent, updateCanvas } from '../domain/canvases'
import { findVersionContent, findViewable } from '../domain/canvas-reads'
import { signedDownload } from '../domain/downloads'
import { createShare, revokeShares } from '../domain/shares'
import { sessionActor } from '../domain/users'
import { AppError } from '../lib/errors'
import { storageTarget } from '../storage/target'
import { frameUrls } from './frame-links'
import { formFields } from './forms'
import { ConfirmDelete } from './pages/confirm-delete'
import { Viewer } from './pages/viewer'
import { checkedForm, csrfToken, signedIn } from './session'

// /c/:id: one canvas. Its owner sees it with its actions; anyone sees it while it is public.
export const canvas = new Hono<AppEnv>()

canvas.get('/:id', async (c) => {
  const { svc, session } = c.var
  const canvasId = canvasIdParam(c)
  const view = await findViewable(svc, canvasId, session?.workspace.workspace_id ?? null)
  if (!view) {
    if (!session) return c.redirect(`/login?next=${encodeURIComponent(`/c/${canvasId}`)}`)
    throw new AppError('canvas_not_found', 'canvas not found')
  }
  const version = pickVersion(c.req.query('v'), view.versions, view.canvas.version)
  const shared = c.req.query('shared')
  const origin = requestOrigin(c)
  const owner = view.isOwner ? session : undefined
  // The frame lives as long as the access that shows it: the owner's session, or publicity.
  const grant = owner
    ? ({ kind: 'owner', sessionId: owner.sessionId } as const)
    : ({ kind: 'public' } as const)
  const frame = await frameUrls(svc, origin, { canvasId, version, grant })
  return c.html(
    <Viewer
      title={view.canvas.title}
      rendererId={view.canvas.renderer_id}
      ext={view.canvas.ext}
      frameSrc={frame.src}
      version={version}
      versions={view.versions}
      canvasId={canvasId}
      downloadHref={`/c/${canvasId}/download?v=${version}`}
      owner={owner ? { csrf: await csrfToken(svc, owner) } : undefined}
      shareUrl={
        owner && shared && shareToken.safeParse(shared).success
          ? `${origin}/s/${shared}`
          : undefined
      }
      og={
        view.canvas.visibility === 'public'
          ? { title: view.canvas.title, type: 'article' }
          : undefined
      }
    />,
  )
})

canvas.get('/:id/download', async (c) => {
  const { svc, session } = c.var
  const view = await findViewable(svc, canvasIdParam(c), session?.workspace.workspace_id ?? null)
  if (!view) throw new AppError('canvas_not_found', 'canvas not found')
  const version = pickVersion(c.req.query('v'), view.versions, view.canvas.version)
  const content = await findVersionContent(svc, view.canvas.canvas_id, version)
  if (!content) throw new AppError('version_not_found', 'version not found')
  const target = storageTarget(svc.settings, requestOrigin(c))
  const url = await signedDownload(svc, target, { blobKey: content.blob_key, ...view.canvas }, true)
  return c.redirect(url, 302)
})

canvas.get('/:id/delete', signedIn, async (c) => {
  const { svc, session } = c.var
  const view = await findViewable(svc, canvasIdParam(c), session.workspace.workspace_id)
  if (!view?.isOwner) throw new AppError('canvas_not_found', 'canvas not found')
  return c.html(
    <ConfirmDelete user={session.user} csrf={await csrfToken(svc, session)} canvas={view.canvas} />,
  )
})

// The owner's actions, each a form on the dashboard or the viewer.
canvas.post(
  '/:id/:action{permanent|visibility|share|unshare|delete}',
  signedIn,
  checkedForm,
  async (c) => {
    const { svc, session, form } = c.var
    const actor = sessionActor(session)
    const canvasId = canvasIdParam(c)
    switch (c.req.param('action')) {
      case 'permanent':
        await makePermanent(svc, actor, canvasId)
        break
      case 'visibility': {
        const input = parse(updateCanvasBody, formFields(form, ['visibility']))
        await updateCanvas(svc, actor, canvasId, input)
        break
      }
      case 'unshare':
        await revokeShares(svc, actor, canvasId)
        break
      case 'delete':
        await deleteCanvas(svc, actor, canvasId)
        break
      case 'share': {
        const input = parse(createShareBody, formFields(form, ['expires_in', 'password']))
        const link = await createShare(svc, actor, canvasId, input)
        if (form.get('back') === 'viewer') return c.redirect(`/c/${canvasId}?shared=${link.token}`)
        return c.redirect(`/?shared=${link.token}#canvas-${canvasId}`)
      }
    }
    return c.redirect(`/#canvas-${canvasId}`)
  },
)

/** The version asked for in `?v=`, if the canvas has it; else the current one. */
function pickVersion(raw: string | undefined, versions: { version: number }[], current: number) {
  const wanted = Number(raw)
  return versions.some((v) => v.version === wanted) ? wanted : current
}
