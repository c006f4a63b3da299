import { env } from 'cloudflare:test'
import { expect } from 'vitest'
import { call, csrfOf, formPost, json, newAccount, type Account } from './api'
import { HTTPS, cliClient, connect, tokenRequest } from './oauth'

// Every kind of credential a member can act with, for one person in one workspace: their session,
// a key they made, a key of the CLI's browser sign-in (a token exchange), a key of its device
// sign-in, and an app they connected. The security suite walks the routes with each.

export type Credentials = {
  person: Account
  /** Their session, switched to the workspace, and its CSRF token. */
  cookie: string
  csrf: string
  key: string
  exchanged: string
  device: string
  /** An app's OAuth access token (the MCP endpoint takes it). */
  app: string
}

export type KeyKind = 'key' | 'exchanged' | 'device'
export const KEY_KINDS: KeyKind[] = ['key', 'exchanged', 'device']

/** A person joined to `workspaceId` by an invite of `inviter`'s, then given `role`. */
export async function memberOf(inviter: Account, workspaceId: string, role: string) {
  const invite = await json(
    await call(`/v1/workspaces/${workspaceId}/invites`, {
      method: 'POST',
      key: inviter.key,
      json: { role: 'editor' },
    }),
  )
  const person = await newAccount()
  const joined = await call(`/auth/join/${invite.url.split('/join/')[1]}`, {
    method: 'POST',
    cookie: person.cookie,
  })
  expect(joined.status).toBe(200)
  const credentials = await credentialsIn(person, workspaceId)
  // Given the role last: every credential was made as an editor, with every scope.
  const changed = await call(`/v1/workspaces/${workspaceId}/members/${person.userId}`, {
    method: 'PATCH',
    key: inviter.key,
    json: { role },
  })
  expect(changed.status).toBe(200)
  return credentials
}

/** Every credential of `person` (a member as an editor, or above) for `workspaceId`. */
export async function credentialsIn(person: Account, workspaceId: string): Promise<Credentials> {
  const switched = await call('/auth/switch', {
    method: 'POST',
    cookie: person.cookie,
    json: { workspace_id: workspaceId },
  })
  expect(switched.status).toBe(200)
  const made = await call('/auth/keys', {
    method: 'POST',
    cookie: person.cookie,
    json: { name: 'made in settings', workspace_id: workspaceId },
  })
  const cli = await cliClient()
  const signedIn = await connect(person, 'canvas:read canvas:write', cli)
  const exchanged = await tokenRequest({
    grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
    subject_token: signedIn.tokens.access_token,
    subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    requested_token_type: 'urn:canvas:params:oauth:token-type:api-key',
  })
  const { tokens } = await connect(person, 'canvas:read canvas:write')
  return {
    person,
    cookie: person.cookie,
    csrf: await csrfOf(person.cookie),
    key: (await json(made)).key,
    exchanged: (await json(exchanged)).access_token,
    device: await deviceKey(person, workspaceId, cli.client_id),
    app: tokens.access_token,
  }
}

/** A key of the CLI's device sign-in, approved by `person` for `workspaceId`. */
async function deviceKey(person: Account, workspaceId: string, clientId: string) {
  const started = await json(
    await call(`${HTTPS}/oauth/device_authorization`, formPost({ client_id: clientId })),
  )
  const approved = await call('/oauth/device', {
    ...formPost({
      _csrf: await csrfOf(person.cookie),
      user_code: started.user_code,
      decision: 'approve',
      workspace_id: workspaceId,
      access: 'write',
    }),
    cookie: person.cookie,
  })
  expect(approved.status).toBe(200)
  await env.DB.prepare('UPDATE device_authorizations SET polled_at = 0').run()
  const polled = await tokenRequest({
    grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
    device_code: started.device_code,
    client_id: clientId,
  })
  expect(polled.status).toBe(200)
  return (await json(polled)).access_token as string
}
