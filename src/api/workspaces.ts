import { Hono } from 'hono'
import { changeRole, listMembers, removeMember } from '../domain/workspaces/members'
import { createInvite, listInvites, revokeInvite } from '../domain/workspaces/invites'
import { createResetLink } from '../domain/passwords/resets'
import {
  createWorkspace,
  deleteWorkspace,
  listWorkspaces,
  updateWorkspace,
} from '../domain/workspaces/workspaces'
import { publicOrigin, type AppContext, type AppEnv } from '../http/context'
import { key } from '../http/actor/steps'
import { ADMIN, MEMBER, OWNER, READ } from '../http/actor/need'
import { documented } from '../http/route-docs'
import { jsonBody, params } from '../http/validate'
import {
  createInviteBody,
  inviteInPath,
  memberInPath,
  updateWorkspaceBody,
  roleBody,
  workspaceBody,
  workspaceInPath,
} from '../schema/workspace-requests'

// /v1/workspaces (docs/teams.md): the workspaces of the person behind the key, their members and
// invites. A route about one workspace acts in the one its path names, with the person's role
// there (its access step places the actor: http/actor); the key's own scope still bounds what it
// may ask, and a key of the CLI's sign-in reaches no workspace but its own.
export const workspacesApi = new Hono<AppEnv>()

workspacesApi.get(
  '/',
  key(READ),
  documented({
    summary: 'List workspaces',
    description: 'Those of the person behind the key, with their role in each; personal first.',
    tag: 'Workspaces',
    responses: { 200: { description: 'The workspaces.', schema: 'workspaceList' } },
  }),
  async (c) => c.json({ workspaces: await listWorkspaces(c.var.svc, c.var.actor.userId) }),
)

workspacesApi.post(
  '/',
  key(MEMBER, { workspace: 'new' }),
  jsonBody(workspaceBody),
  documented({
    summary: 'Create a workspace',
    description: 'The caller is its owner. A person belongs to at most 100 workspaces.',
    tag: 'Workspaces',
    responses: { 201: { description: 'The workspace.', schema: 'workspaceEntry' } },
    errors: ['conflict'],
  }),
  async (c) => {
    const { name } = c.req.valid('json')
    return c.json(await createWorkspace(c.var.svc, c.var.actor, name), 201)
  },
)

workspacesApi.patch(
  '/:workspace_id',
  key(ADMIN, { workspace: 'path' }),
  params(workspaceInPath),
  jsonBody(updateWorkspaceBody),
  documented({
    summary: 'Rename a workspace, or change its settings',
    description:
      'Admins and owners. `default_expires_in`: how long a new canvas lives unless its ' +
      'request says (`24h`, `7d`; `null` keeps new canvases). `quota_bytes`: what the ' +
      'workspace may store (`null`: the deployment’s `WORKSPACE_QUOTA_BYTES`). ' +
      '`require_review`: every share link and public page shows approved versions only. ' +
      'Answers the settings that now apply.',
    tag: 'Workspaces',
    responses: { 200: { description: 'The workspace.', schema: 'workspaceSettings' } },
    errors: ['not_found', 'forbidden'],
  }),
  async (c) => {
    const body = c.req.valid('json')
    return c.json(
      await updateWorkspace(c.var.svc, c.var.actor, {
        name: body.name,
        defaultExpiresIn: body.default_expires_in,
        quotaBytes: body.quota_bytes,
        requireReview: body.require_review,
      }),
    )
  },
)

workspacesApi.delete(
  '/:workspace_id',
  key(OWNER, { workspace: 'path' }),
  params(workspaceInPath),
  documented({
    summary: 'Delete a workspace',
    description:
      'Owners. Its members, keys, apps, webhooks and invites go at once, its canvases are ' +
      'deleted as deleting each does (the sweep removes them and their files). A personal ' +
      'workspace cannot be deleted (409 `conflict`).',
    tag: 'Workspaces',
    responses: { 200: { description: 'What was deleted.', schema: 'deletedWorkspace' } },
    errors: ['not_found', 'forbidden', 'conflict'],
  }),
  async (c) => {
    return c.json(await deleteWorkspace(c.var.svc, c.var.actor))
  },
)

workspacesApi.get(
  '/:workspace_id/members',
  key(READ, { workspace: 'path' }),
  params(workspaceInPath),
  documented({
    summary: 'List members',
    description: 'Every member with their role, longest-standing first. Any member may read it.',
    tag: 'Workspaces',
    responses: { 200: { description: 'The members.', schema: 'memberList' } },
    errors: ['not_found'],
  }),
  async (c) => {
    const { actor } = c.var
    return c.json({ members: await listMembers(c.var.svc, actor) })
  },
)

workspacesApi.patch(
  '/:workspace_id/members/:user_id',
  key(ADMIN, { workspace: 'path' }),
  params(memberInPath),
  jsonBody(roleBody),
  documented({
    summary: 'Change a member’s role',
    description:
      'Admins; an owner’s role, or making an owner, only by an owner. The member’s keys and ' +
      'connected apps follow at once. The last owner cannot be demoted.',
    tag: 'Workspaces',
    responses: { 200: { description: 'The new role.', schema: 'memberRole' } },
    errors: ['not_found', 'member_not_found', 'forbidden', 'last_owner', 'conflict'],
  }),
  async (c) => {
    const { user_id } = c.req.valid('param')
    const actor = c.var.actor
    return c.json(await changeRole(c.var.svc, actor, user_id, c.req.valid('json').role))
  },
)

workspacesApi.delete(
  '/:workspace_id/members/:user_id',
  key(ADMIN, { workspace: 'path', self: 'user_id' }),
  params(memberInPath),
  documented({
    summary: 'Remove a member, or leave',
    description:
      'Admins remove members (an owner only by an owner); anyone may remove themself. Their ' +
      'keys, connected apps and sessions lose the workspace at once; their canvases stay in it. ' +
      'The last owner cannot leave.',
    tag: 'Workspaces',
    responses: { 200: { description: 'The member removed.', schema: 'memberRole' } },
    errors: ['not_found', 'member_not_found', 'forbidden', 'last_owner'],
  }),
  async (c) => {
    const { user_id } = c.req.valid('param')
    const actor = c.var.actor
    return c.json(await removeMember(c.var.svc, actor, user_id))
  },
)

workspacesApi.post(
  '/:workspace_id/members/:user_id/reset-link',
  key(ADMIN, { workspace: 'path' }),
  params(memberInPath),
  documented({
    summary: 'Make a password reset link',
    description:
      'Admins, for a member they rank above here and in every other shared workspace of the ' +
      'member. `{web_url}/reset/<token>`, shown in this answer only, lets the member choose a ' +
      'new password once within 24 h; a newer link replaces it. Using it ends their sessions.',
    tag: 'Workspaces',
    responses: { 201: { description: 'The link.', schema: 'resetLink' } },
    errors: ['not_found', 'member_not_found', 'forbidden'],
  }),
  async (c) => {
    const { user_id } = c.req.valid('param')
    const actor = c.var.actor
    const { token, expiresAt } = await createResetLink(c.var.svc, actor, user_id)
    const url = `${publicOrigin(c).origin}/reset/${token}`
    return c.json({ user_id, url, expires_at: new Date(expiresAt).toISOString() }, 201)
  },
)

workspacesApi.post(
  '/:workspace_id/invites',
  key(ADMIN, { workspace: 'path' }),
  params(workspaceInPath),
  jsonBody(createInviteBody),
  documented({
    summary: 'Invite a person',
    description:
      'A single-use link, `{web_url}/join/<token>`, shown in this answer only: whoever opens it ' +
      'joins with `role` (an `owner` invite only by an owner), or only the person with `email` ' +
      'when it is given. `expires_in` defaults to 7d, at most 30d. At most 100 pending invites.',
    tag: 'Workspaces',
    responses: { 201: { description: 'The invite and its link.', schema: 'createdInvite' } },
    errors: ['not_found', 'forbidden', 'conflict'],
  }),
  async (c) => {
    const { actor } = c.var
    const body = c.req.valid('json')
    const { invite, token } = await createInvite(c.var.svc, actor, {
      role: body.role,
      email: body.email,
      expiresInSeconds: body.expires_in,
    })
    return c.json({ ...invite, url: `${publicOrigin(c).origin}/join/${token}` }, 201)
  },
)

workspacesApi.get(
  '/:workspace_id/invites',
  key(ADMIN, { workspace: 'path' }),
  params(workspaceInPath),
  documented({
    summary: 'List pending invites',
    description: 'Admins. Newest first, without their links.',
    tag: 'Workspaces',
    responses: { 200: { description: 'The invites.', schema: 'inviteList' } },
    errors: ['not_found', 'forbidden'],
  }),
  async (c) => {
    const { actor } = c.var
    return c.json({ invites: await listInvites(c.var.svc, actor) })
  },
)

workspacesApi.delete(
  '/:workspace_id/invites/:invite_id',
  key(ADMIN, { workspace: 'path' }),
  params(inviteInPath),
  documented({
    summary: 'Revoke an invite',
    description: 'Admins. Its link stops working at once.',
    tag: 'Workspaces',
    responses: { 200: { description: 'Revoked.', schema: 'success' } },
    errors: ['not_found', 'forbidden', 'invite_not_found'],
  }),
  async (c) => {
    const { invite_id } = c.req.valid('param')
    await revokeInvite(c.var.svc, c.var.actor, invite_id)
    return c.json({ success: true })
  },
)
