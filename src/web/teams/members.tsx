import { Hono, type Context } from 'hono'
import { page } from '../../http/actor/steps'
import { may, MEMBER, READ } from '../../http/actor/need'
import { MANAGING, OWNING } from '../needs'
import type { SignedInEnv } from '../../http/context'
import { parse } from '../../http/validate'
import { publicOrigin } from '../../http/context'
import { createResetLink } from '../../domain/passwords/resets'
import { createInvite, listInvites, revokeInvite } from '../../domain/workspaces/invites'
import { changeRole, listMembers, removeMember } from '../../domain/workspaces/members'

import { settingsOf } from '../../domain/workspaces/settings'
import {
  createWorkspace,
  deleteWorkspace,
  listWorkspaces,
  switchWorkspace,
  updateWorkspace,
} from '../../domain/workspaces/workspaces'
import { AppError } from '../../lib/errors'
import {
  createInviteBody,
  roleBody,
  switchBody,
  updateWorkspaceBody,
  workspaceBody,
} from '../../schema/workspace-requests'
import { quoted, setFlash, takeFlash, type Flash } from '../flash'
import { forPeople } from '../people'
import { checkedForm, csrfToken, viewerOf } from '../session'
import { MembersPage } from './members-page'
import { lifeWords } from './settings-section'

// /settings/members: the session's workspace's members and pending invites, and the person's
// workspaces (switch, make a new one). Every action ends back on this page, saying what it did.
export const members = new Hono<SignedInEnv>()

members.get('/', page(READ), async (c) => {
  const { svc, session } = c.var
  const actor = c.var.actor
  const admin = may(actor, MANAGING)
  const [people, invites, workspaces, settings] = await Promise.all([
    listMembers(svc, actor),
    admin ? listInvites(svc, actor) : null,
    listWorkspaces(svc, actor.userId),
    admin ? settingsOf(svc, actor.workspaceId) : null,
  ])
  return c.html(
    <MembersPage
      user={viewerOf(session)}
      workspace={session.workspace}
      csrf={await csrfToken(svc, session)}
      members={people}
      invites={invites}
      workspaces={workspaces}
      settings={settings}
      resets={svc.settings.sso.passwordLogin}
      flash={await takeFlash(c, c.var)}
    />,
  )
})

/** What an action says: a sentence, or one with what to copy, or said elsewhere on the page. */
type Said = string | { text: string; copy?: Flash['copy']; at?: string }

/** Runs a form's action; what it says, or its refusal in a person's words, goes to the page. */
async function act<E extends SignedInEnv>(c: Context<E>, at: string, action: () => Promise<Said>) {
  let flash: Flash
  try {
    const said = await action()
    flash = typeof said === 'string' ? { tone: 'ok', text: said, at } : { tone: 'ok', at, ...said }
  } catch (err) {
    if (!(err instanceof AppError)) throw err
    flash = { tone: 'error', text: forPeople(err.message), at }
  }
  await setFlash(c, flash)
  return c.redirect(`/settings/members#${flash.at ?? at}`)
}

members.post('/invites', page(MANAGING), checkedForm, (c) =>
  act(c, 'invites', async () => {
    const form = c.var.form
    const body = parse(createInviteBody, {
      role: form.get('role') || 'editor',
      ...(form.get('email') && { email: form.get('email') }),
      ...(form.get('expires_in') && { expires_in: form.get('expires_in') }),
    })
    const { invite, token } = await createInvite(c.var.svc, c.var.actor, {
      role: body.role,
      email: body.email,
      expiresInSeconds: body.expires_in,
    })
    const only = invite.email ? ` (${invite.email} only)` : ''
    return {
      text: `An invite to join as ${invite.role}${only}. Copy the link now: it is shown once, and works once.`,
      copy: [{ label: 'The invite link', value: `${publicOrigin(c).origin}/join/${token}` }],
    }
  }),
)

members.post('/invites/:inviteId/revoke', page(MANAGING), checkedForm, (c) =>
  act(c, 'invites', async () => {
    await revokeInvite(c.var.svc, c.var.actor, c.req.param('inviteId'))
    return 'The invite is revoked: its link no longer works.'
  }),
)

members.post('/:userId/role', page(MANAGING), checkedForm, (c) =>
  act(c, 'members', async () => {
    const { role } = parse(roleBody, { role: c.var.form.get('role') ?? '' })
    const actor = c.var.actor
    await changeRole(c.var.svc, actor, c.req.param('userId'), role)
    return `Their role is now ${role}, for their keys and apps too.`
  }),
)

members.post('/:userId/reset-link', page(MANAGING), checkedForm, (c) =>
  act(c, 'members', async () => {
    const actor = c.var.actor
    const { token, email } = await createResetLink(c.var.svc, actor, c.req.param('userId'))
    return {
      text: `A link for ${email} to choose a new password, for 24 hours. Copy it now and hand it over yourself: it is shown once, works once, and signs them out everywhere.`,
      copy: [{ label: 'The reset link', value: `${publicOrigin(c).origin}/reset/${token}` }],
    }
  }),
)

members.post('/:userId/remove', page(MANAGING, { self: 'userId' }), checkedForm, (c) =>
  act(c, 'members', async () => {
    const actor = c.var.actor
    const leaving = c.req.param('userId') === actor.userId
    await removeMember(c.var.svc, actor, c.req.param('userId'))
    return leaving
      ? `You left ${quoted(c.var.session.workspace.name)}; you are back in your own workspace.`
      : 'They are removed: their keys and apps stopped at once; their canvases stay here.'
  }),
)

members.post('/switch', page(MEMBER), checkedForm, (c) =>
  act(c, 'workspaces', async () => {
    const { workspace_id } = parse(switchBody, {
      workspace_id: c.var.form.get('workspace_id') ?? '',
    })
    const { svc, session } = c.var
    const to = await switchWorkspace(svc, session.sessionHash, session.user.user_id, workspace_id)
    return `You are in ${quoted(to.name)} (${to.role}).`
  }),
)

members.post('/settings', page(MANAGING), checkedForm, (c) =>
  act(c, 'settings', async () => {
    const form = c.var.form
    const life = form.get('default_expires_in') ?? ''
    const mb = (form.get('quota_mb') ?? '').trim()
    if (mb !== '' && !/^[1-9]\d{0,8}$/.test(mb)) {
      throw new AppError(
        'invalid_request',
        'quota: must be a whole number of MB, or empty for no limit',
      )
    }
    const body = parse(updateWorkspaceBody, {
      name: form.get('name') ?? '',
      default_expires_in: life === 'keep' ? null : life,
      quota_bytes: mb === '' ? null : Number(mb) * 1024 * 1024,
      require_review: form.get('require_review') === 'true',
    })
    const { svc, session } = c.var
    await updateWorkspace(svc, c.var.actor, {
      name: body.name,
      defaultExpiresIn: body.default_expires_in,
      quotaBytes: body.quota_bytes,
      requireReview: body.require_review,
    })
    const kept =
      body.default_expires_in === null
        ? 'Saved: new canvases here are kept until deleted.'
        : `Saved: new canvases here expire after ${lifeWords(life)}.`
    return body.require_review ? `${kept} Readers see approved versions only.` : kept
  }),
)

members.post('/delete', page(OWNING), checkedForm, (c) =>
  act(c, 'workspaces', async () => {
    const { svc, session } = c.var
    const name = session.workspace.name
    if ((c.var.form.get('confirm') ?? '').trim() !== name) {
      throw new AppError(
        'invalid_request',
        `type the workspace’s name, ${quoted(name)}, to delete it`,
      )
    }
    const gone = await deleteWorkspace(svc, c.var.actor)
    return `${quoted(name)} is deleted, with its ${gone.canvases} canvases; you are back in your own workspace.`
  }),
)

members.post('/workspaces', page(MEMBER, { workspace: 'new' }), checkedForm, (c) =>
  act(c, 'workspaces', async () => {
    const { name } = parse(workspaceBody, { name: c.var.form.get('name') ?? '' })
    const { svc, session } = c.var
    const made = await createWorkspace(svc, c.var.actor, name)
    await switchWorkspace(svc, session.sessionHash, session.user.user_id, made.workspace_id)
    // Said beside the invite form of the new workspace: what one does next there.
    return {
      text: `${quoted(made.name)} is made, and you are in it: invite people here.`,
      at: 'invites',
    }
  }),
)
