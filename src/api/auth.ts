import { Hono } from 'hono'
import { deleteCookie, getCookie } from 'hono/cookie'
import { createKey, listKeys, revokeKey } from '../domain/keys'
import { endSession, login, signup } from '../domain/users'
import { fromThisMachine, type AppEnv } from '../http/context'
import { open, session } from '../http/actor/steps'
import { isHttps, sameOrigin, SESSION_COOKIE, startSession } from '../http/actor/session'
import { MEMBER, READ } from '../http/actor/need'
import { limitByIp } from '../http/limits'
import { id } from '../schema/requests'
import { createKeyBody, credentialsBody, loginBody } from '../schema/account-requests'
import { inviteTokenInPath, switchBody } from '../schema/workspace-requests'
import { jsonBody, params, parse } from '../http/validate'
import { actorIn } from '../http/actor/build'
import { joinWithSession, switchWorkspace } from '../domain/workspaces/workspaces'
import { documented } from '../http/route-docs'

// JSON endpoints for the web app: session cookie, same origin only (docs/api.md).
export const auth = new Hono<AppEnv>()

auth.use('*', sameOrigin, limitByIp('AUTH_LIMITER'))

auth.post(
  '/signup',
  open,
  jsonBody(credentialsBody),
  documented({
    summary: 'Sign up',
    description:
      'For the web app, from its own pages only. The first account needs the deployment’s ' +
      'setup token (`setup_token`, from the setup link `npm run deploy` prints; none on the ' +
      'machine itself when none is set); later ones are allowed when the server’s SIGNUP ' +
      'setting is open, or with an invite (`invite`, the token its link ends with), which also ' +
      'joins its workspace and starts the session there. Sets the session cookie.',
    tag: 'Web session',
    responses: { 201: { description: 'The new account.', schema: 'account' } },
    errors: ['signup_closed', 'conflict', 'forbidden', 'invite_not_found', 'rate_limited'],
  }),
  async (c) => {
    const body = c.req.valid('json')
    const setup = { token: body.setup_token, local: fromThisMachine(c), invite: body.invite }
    const { account, sessionToken, expiresAt } = await signup(c.var.svc, body, setup)
    startSession(c, sessionToken, expiresAt)
    return c.json(account, 201)
  },
)

auth.post(
  '/login',
  open,
  jsonBody(loginBody),
  documented({
    summary: 'Log in',
    description: 'For the web app, from its own pages only. Sets the session cookie.',
    tag: 'Web session',
    responses: { 200: { description: 'The account.', schema: 'account' } },
    errors: ['unauthorized', 'forbidden', 'rate_limited'],
  }),
  async (c) => {
    const body = c.req.valid('json')
    const { account, sessionToken, expiresAt } = await login(c.var.svc, body)
    startSession(c, sessionToken, expiresAt)
    return c.json(account)
  },
)

auth.post(
  '/logout',
  open,
  documented({
    summary: 'Log out',
    description: 'Ends the session and clears its cookie.',
    tag: 'Web session',
    responses: { 200: { description: 'Logged out.', schema: 'success' } },
    errors: ['forbidden', 'rate_limited'],
  }),
  async (c) => {
    const token = getCookie(c, SESSION_COOKIE)
    if (token) await endSession(c.var.svc, token)
    deleteCookie(c, SESSION_COOKIE, { path: '/', secure: isHttps(c) })
    return c.json({ success: true })
  },
)

auth.get(
  '/keys',
  session(READ),
  documented({
    summary: 'List API keys',
    tag: 'Web session',
    responses: { 200: { description: 'The workspace’s keys.', schema: 'keyList' } },
    errors: ['rate_limited'],
  }),
  async (c) => {
    return c.json({ keys: await listKeys(c.var.svc, c.var.actor) })
  },
)

auth.post(
  '/keys',
  session(MEMBER),
  jsonBody(createKeyBody),
  documented({
    summary: 'Create an API key',
    description:
      'Scopes default to read and write (a viewer may make read keys only). The key acts in ' +
      '`workspace_id`, one of the person’s, by default the session’s current one. The secret is ' +
      'in this answer only.',
    tag: 'Web session',
    responses: { 201: { description: 'The key with its secret.', schema: 'createdKey' } },
    errors: ['forbidden', 'not_found', 'rate_limited'],
  }),
  async (c) => {
    const body = c.req.valid('json')
    const svc = c.var.svc
    const actor = c.var.actor
    const where = body.workspace_id ? await actorIn(svc, actor, body.workspace_id) : actor
    return c.json(await createKey(svc, where, body.name, body.scopes ?? ['read', 'write']), 201)
  },
)

auth.delete(
  '/keys/:key_id',
  session(MEMBER),
  documented({
    summary: 'Revoke an API key',
    tag: 'Web session',
    responses: { 200: { description: 'Revoked.', schema: 'success' } },
    errors: ['not_found', 'forbidden', 'rate_limited'],
  }),
  async (c) => {
    await revokeKey(c.var.svc, c.var.actor, parse(id, c.req.param('key_id')))
    return c.json({ success: true })
  },
)

auth.post(
  '/switch',
  session(MEMBER),
  jsonBody(switchBody),
  documented({
    summary: 'Switch workspace',
    description: 'The workspace the session acts in from now on: one of the person’s.',
    tag: 'Web session',
    responses: { 200: { description: 'The workspace.', schema: 'workspaceEntry' } },
    errors: ['not_found', 'forbidden', 'rate_limited'],
  }),
  async (c) => {
    const { session, svc } = c.var
    const { workspace_id } = c.req.valid('json')
    return c.json(
      await switchWorkspace(svc, session.sessionHash, session.user.user_id, workspace_id),
    )
  },
)

auth.post(
  '/join/:token',
  session(MEMBER),
  params(inviteTokenInPath),
  documented({
    summary: 'Join by invite',
    description:
      'Uses the invite (the token its link ends with) for the signed-in person, who joins its ' +
      'workspace with its role; the session switches to it. An invite works once.',
    tag: 'Web session',
    responses: { 200: { description: 'The workspace joined.', schema: 'joined' } },
    errors: ['invite_not_found', 'conflict', 'forbidden', 'rate_limited'],
  }),
  async (c) => {
    const { session, svc } = c.var
    const workspace = await joinWithSession(svc, session, c.req.valid('param').token)
    return c.json({
      workspace: {
        workspace_id: workspace.workspace_id,
        name: workspace.name,
        role: workspace.role,
      },
    })
  },
)
