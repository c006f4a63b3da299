import { Hono, type Context } from 'hono'
import { page } from '../../http/actor/steps'
import { CHANGING } from '../needs'
import { requestOrigin, type AppEnv } from '../../http/context'
import { params, parse } from '../../http/validate'
import { canvasInPath, createShareBody, shareInPath, updateCanvasBody } from '../../schema/requests'
import { findViewable } from '../../domain/canvases/reads'
import { deleteCanvas, makePermanent, updateCanvas } from '../../domain/canvases/canvases'
import { createShare, endsWithCanvas, revokeShare, revokeShares } from '../../domain/shares/shares'
import { calendar } from '../../lib/time'
import { AppError } from '../../lib/errors'
import { ownerPage } from './owner-page'
import { quoted, setFlash } from '../flash'
import { formFields } from '../forms'
import { checkedForm, limitBySession, type FormEnv } from '../session'

// The owner's actions on a canvas, each a form post that ends on a page saying what it did
// (post, redirect, get: a reload repeats nothing). Those posted from the dashboard go back there.
export const canvasActions = new Hono<AppEnv>()

// A route of its own each, not one with a pattern of the four: Hono's quickest router (its
// RegExpRouter) takes a parameter beside a fixed name (/:id/share) only when neither is a pattern.
for (const action of ['permanent', 'visibility', 'delete', 'unshare'] as const) {
  canvasActions.post(
    `/:id/${action}`,
    page(CHANGING),
    params(canvasInPath),
    limitBySession,
    checkedForm,
    async (c) => {
      const { svc, session, form } = c.var
      const actor = c.var.actor
      const canvasId = c.req.valid('param').id
      // The message shows beside the button that was used: on the canvas's row of the dashboard,
      // or under the bar of the canvas's page, at its top.
      const at = form.get('back') === 'dashboard' ? `canvas-${canvasId}` : undefined
      switch (action) {
        case 'permanent': {
          const canvas = await makePermanent(svc, actor, canvasId)
          await setFlash(c, {
            tone: 'ok',
            text: `${quoted(canvas.title)} is permanent: it will not expire.`,
            at,
          })
          break
        }
        case 'visibility': {
          const input = parse(updateCanvasBody, formFields(form, ['visibility']))
          const canvas = await updateCanvas(svc, actor, canvasId, input)
          const text =
            canvas.visibility === 'public'
              ? `${quoted(canvas.title)} is public: anyone with its address can see it.`
              : `${quoted(canvas.title)} is private: only you, and your share links, show it.`
          await setFlash(c, { tone: 'ok', text, at })
          break
        }
        case 'unshare': {
          const count = await revokeShares(svc, actor, canvasId)
          const text = `Revoked ${count} share ${count === 1 ? 'link' : 'links'}: none opens any more.`
          await setFlash(c, { tone: 'ok', text, at: 'share' })
          return c.redirect(`/c/${canvasId}#share`)
        }
        case 'delete': {
          const { title } = await deleteCanvas(svc, actor, canvasId)
          const text = `${quoted(title)} was deleted, with its versions and links.`
          await setFlash(c, { tone: 'ok', text })
          return c.redirect('/')
        }
      }
      return backTo(c, canvasId)
    },
  )
}

canvasActions.post(
  '/:id/share',
  page(CHANGING),
  params(canvasInPath),
  limitBySession,
  checkedForm,
  async (c) => {
    const { svc, session, form } = c.var
    const canvasId = c.req.valid('param').id
    const fields = formFields(form, [
      'expires_in',
      'password',
      'max_views',
      'version',
      'token',
      'allow_comments',
    ])
    try {
      // "The approved version" is a link that follows approval, not a version.
      const approved = fields.version === 'approved'
      const { version: _, ...choice } = fields
      const { allow_comments: allow, ...rest } = withNumbers(approved ? choice : fields, [
        'max_views',
        'version',
      ])
      // A checkbox sends its value when ticked and nothing otherwise.
      const input = parse(createShareBody, {
        ...rest,
        allow_comments: allow === 'true',
        ...(approved && { follow: 'approved' }),
      })
      const link = await createShare(svc, c.var.actor, canvasId, input)
      const url = `${requestOrigin(c)}/s/${link.token}`
      // What the page says of the link's end is when it ends: its own time, or its canvas's.
      const ends = endsWithCanvas(link, input.expires_in)
      const may = link.allow_comments ? 'open this canvas and comment on it' : 'open this canvas'
      const until = link.expires_at
        ? `until ${calendar(link.expires_at)}, unless it is revoked first`
        : 'until it is revoked'
      await setFlash(c, {
        tone: 'ok',
        text: ends
          ? `Share link created. Anyone with it can ${may}, but ${ends}.`
          : `Share link created. Anyone with it can ${may} ${until}.`,
        copy: [{ label: 'The link', value: url }],
        at: 'share',
      })
      return c.redirect(`/c/${canvasId}#share`)
    } catch (err) {
      // The form again with what was typed (but the password) and why it was refused.
      if (!(err instanceof AppError) || !SHARE_FORM_ERRORS.has(err.code)) throw err
      const view = await findViewable(svc, canvasId, session.workspace.workspace_id)
      if (!view?.isOwner) throw new AppError('canvas_not_found', 'canvas not found')
      const { password: _, ...values } = fields
      const status = err.status as 400 | 404 | 409
      const error = shareFormError(err, fields.token, view.canvas.version)
      return ownerPage(c, session, view, { values, error, status })
    }
  },
)

const SHARE_FORM_ERRORS = new Set(['invalid_request', 'version_not_found', 'share_token_taken'])

canvasActions.post(
  '/:id/shares/:token/revoke',
  page(CHANGING),
  params(shareInPath),
  checkedForm,
  async (c) => {
    const { svc, session } = c.var
    const { id: canvasId, token } = c.req.valid('param')
    if (!token) throw new AppError('share_not_found', 'no such link')
    try {
      await revokeShare(svc, c.var.actor, canvasId, token)
      await setFlash(c, {
        tone: 'ok',
        text: `The link …${token.slice(-6)} is revoked: it opens nothing.`,
        at: 'share',
      })
    } catch (err) {
      // Revoked already (another tab): the page as it would be anyway, saying so.
      if (!(err instanceof AppError) || err.code !== 'share_not_found') throw err
      await setFlash(c, { tone: 'ok', text: 'That link was revoked already.', at: 'share' })
    }
    return c.redirect(`/c/${canvasId}#share`)
  },
)

/** Actions posted from the dashboard go back to it, at the canvas's row; others to the canvas. */
function backTo(c: Context<FormEnv>, canvasId: string) {
  const fromDashboard = c.var.form.get('back') === 'dashboard'
  return c.redirect(fromDashboard ? `/#canvas-${canvasId}` : `/c/${canvasId}`)
}

/**
 * Form fields are text: whole numbers become numbers, so the API's schema judges them alike; any
 * other text in a number's field is refused here, in the words of a person's form.
 */
function withNumbers(fields: Record<string, string>, names: string[]) {
  const out: Record<string, string | number> = { ...fields }
  for (const name of names) {
    if (!(name in fields)) continue
    if (!/^-?\d{1,15}$/.test(fields[name])) {
      throw new AppError('invalid_request', `${name}: must be a whole number`)
    }
    out[name] = Number(fields[name])
  }
  return out
}

// The share form's fields as its labels name them, for the sentence that says what was wrong.
const SHARE_LABELS: Record<string, string> = {
  expires_in: 'The expiry',
  password: 'The password',
  max_views: 'The view limit',
  version: 'The version',
  token: 'The link name',
}

/**
 * Why the share form was refused, as a sentence about its fields: "max_views: must be at most
 * 1000000" → "The view limit must be at most 1000000."; a name taken or a version the canvas does
 * not have, with what to do instead.
 */
function shareFormError(err: AppError, token: string | undefined, current: number) {
  if (err.code === 'share_token_taken') {
    return `The link name “${token}” is taken: choose another, or leave it empty for a random one.`
  }
  if (err.code === 'version_not_found') {
    const has = current === 1 ? 'only version 1' : `versions 1 to ${current}`
    return `That version does not exist: this canvas has ${has}.`
  }
  const sentence = err.message.replace(
    /^(\w+): /,
    (_, name: string) => `${SHARE_LABELS[name] ?? name} `,
  )
  return sentence.endsWith('.') ? sentence : `${sentence}.`
}
