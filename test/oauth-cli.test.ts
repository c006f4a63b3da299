import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { call, csrfOf, formPost, json, newAccount, type Account } from './support/api'
import {
  HTTPS,
  cliClient,
  connect,
  mcp,
  register,
  tokenRequest,
  type Client,
} from './support/oauth'
import { joinedAs, keyIn, newTeam } from './support/teams'
import { withinOneWindow } from './support/limit-window'

// What `svc login` uses of the OAuth server (docs/cli.md#logging-in): the device authorization
// grant (RFC 8628) with its page, the token exchange that turns an app's access token into an API
// key (RFC 8693), and the revocation of a key by whoever holds it (RFC 7009, `svc logout`).

const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code'

async function startDevice(client: Client, scope?: string, keyName?: string) {
  const res = await call(`${HTTPS}/oauth/device_authorization`, {
    ...formPost({
      client_id: client.client_id,
      ...(scope && { scope }),
      ...(keyName && { key_name: keyName }),
    }),
  })
  return { res, body: await json(res.clone()) }
}

const poll = (client: Client, deviceCode: string) =>
  tokenRequest({ grant_type: DEVICE, device_code: deviceCode, client_id: client.client_id })

async function answer(account: Account, userCode: string, fields: Record<string, string>) {
  return call('/oauth/device', {
    ...formPost({ _csrf: await csrfOf(account.cookie), user_code: userCode, ...fields }),
    cookie: account.cookie,
  })
}

/** Moves the device's last poll back, as if the CLI had waited its interval. */
const waited = () => env.DB.prepare('UPDATE device_authorizations SET polled_at = 0').run()

describe('signing in a device (RFC 8628)', () => {
  it('gives the CLI a key for the workspace and access the person picked, once', async () => {
    const owner = await newAccount()
    const team = await newTeam(owner, 'Device team')
    const client = await cliClient()
    const { res, body } = await startDevice(client, undefined, 'svc on build-box')
    expect(res.status).toBe(200)
    expect(res.headers.get('Cache-Control')).toBe('no-store')
    expect(body).toEqual({
      device_code: expect.stringMatching(/^[A-Za-z0-9]{40}$/),
      user_code: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{8}$/),
      verification_uri: `${HTTPS}/oauth/device`,
      verification_uri_complete: `${HTTPS}/oauth/device?user_code=${body.user_code}`,
      expires_in: 600,
      interval: 5,
    })

    const first = await poll(client, body.device_code)
    expect(first.status).toBe(400)
    expect((await json(first)).error).toBe('authorization_pending')
    expect((await json(await poll(client, body.device_code))).error).toBe('slow_down')

    // The link carries the code; the page still asks, naming the app and the code.
    const shown = `${body.user_code.slice(0, 4)}-${body.user_code.slice(4)}`
    const page = await call(`/oauth/device?user_code=${body.user_code.toLowerCase()}`, {
      cookie: owner.cookie,
    })
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('svc on build-box')
    expect(html).toContain(shown)
    expect(html).toContain('Device team')

    const done = await answer(owner, shown.toLowerCase(), {
      decision: 'approve',
      workspace_id: team,
      access: 'read',
    })
    expect(done.status).toBe(200)
    expect(await done.text()).toContain('back to your terminal')

    const approved = await poll(client, body.device_code)
    expect(approved.status).toBe(200)
    const tokens = await json(approved)
    expect(tokens).toEqual({
      access_token: expect.stringMatching(/^svc_/),
      token_type: 'Bearer',
      scope: 'canvas:read',
    })
    const me = await json(await call('/v1/me', { key: tokens.access_token }))
    expect(me.workspace.workspace_id).toBe(team)
    expect(me.key).toMatchObject({ name: 'svc on build-box', scopes: ['read'] })
    // Spent: no second key from the same code, and the code's page no longer works.
    expect((await json(await poll(client, body.device_code))).error).toBe('invalid_grant')
    expect((await answer(owner, shown, { decision: 'approve' })).status).toBe(404)
    // Listed in Settings with the person's keys for that workspace, and in the log.
    const keys = await json(await call('/auth/keys', { cookie: owner.cookie }))
    expect(keys.keys.map((k: { name: string }) => k.name)).not.toContain('svc on build-box')
    const audit = await json(await call('/v1/audit', { key: await keyIn(owner, team) }))
    expect(audit.events).toContainEqual(
      expect.objectContaining({
        action: 'key.created',
        details: { name: 'svc on build-box', scopes: ['read'] },
      }),
    )
  })

  it('answers a denial, an expired code and a mistyped one as RFC 8628 says', async () => {
    const owner = await newAccount()
    const client = await cliClient()
    const denied = (await startDevice(client)).body
    await poll(client, denied.device_code)
    const no = await answer(owner, denied.user_code, { decision: 'deny' })
    expect(no.status).toBe(200)
    expect(await no.text()).toContain('Sign-in denied')
    expect((await json(await poll(client, denied.device_code))).error).toBe('access_denied')

    const late = (await startDevice(client)).body
    await env.DB.prepare('UPDATE device_authorizations SET expires_at = 1 WHERE user_code = ?')
      .bind(late.user_code)
      .run()
    expect((await json(await poll(client, late.device_code))).error).toBe('expired_token')
    expect((await answer(owner, late.user_code, { decision: 'approve' })).status).toBe(404)

    for (const typed of ['', 'AAAA-AAAA', 'BCDF', '<script>', 'BCDFGHJKL']) {
      const res = await answer(owner, typed, {})
      expect(res.status, typed).toBe(404)
      expect(await res.text()).toContain('This code is not valid or has expired')
    }
    // Another client's poll with a code is not the code's.
    const other = await register()
    const mine = (await startDevice(client)).body
    expect((await json(await poll(other, mine.device_code))).error).toBe('invalid_grant')
  })

  it('refuses unknown clients and scopes, and a member who left since approving', async () => {
    expect((await startDevice({ client_id: 'nope', redirect_uris: [] })).res.status).toBe(401)
    // Any app but the deployment's own CLI: its sign-in would end in a key of its own.
    const app = await startDevice(await register({ client_name: 'svc on build-box' }))
    expect(app.res.status).toBe(401)
    expect(app.body).toEqual({
      error: 'invalid_client',
      error_description: expect.stringMatching(/own CLI/),
    })
    const client = await cliClient()
    const named = await startDevice(client, undefined, 'svc\u202eevil')
    expect(named.res.status).toBe(400)
    expect(named.body.error_description).toMatch(/^key_name: must not contain invisible/)
    const scoped = await startDevice(client, 'canvas:admin')
    expect(scoped.res.status).toBe(400)
    expect(scoped.body.error).toBe('invalid_scope')

    const owner = await newAccount()
    const team = await newTeam(owner)
    const { person } = await joinedAs(owner, team, 'editor')
    const { body } = await startDevice(client)
    await answer(person, body.user_code, { decision: 'approve', workspace_id: team })
    await call(`/v1/workspaces/${team}/members/${person.userId}`, {
      method: 'DELETE',
      key: await keyIn(owner, team),
    })
    await waited()
    const res = await poll(client, body.device_code)
    expect(res.status).toBe(400)
    expect((await json(res)).error).toBe('access_denied')
  })

  it('counts every code looked up, on the page’s link or its form, against one budget', async () => {
    const owner = await newAccount()
    const small = { AUTH_LIMITER: env.AUTH_LIMITER_SMALL }
    await withinOneWindow(async (ip) => {
      const statuses: number[] = []
      for (let i = 0; i < 3; i++) {
        const res = await call('/oauth/device?user_code=BCDFGHJK', {
          cookie: owner.cookie,
          env: small,
          ip,
        })
        statuses.push(res.status)
      }
      for (let i = 0; i < 3; i++) {
        const res = await call('/oauth/device', {
          ...formPost({ _csrf: await csrfOf(owner.cookie), user_code: 'BCDFGHJK' }),
          cookie: owner.cookie,
          env: small,
          ip,
        })
        statuses.push(res.status)
      }
      // The budget is five: the sixth guess is refused, whichever way it came.
      expect(statuses.slice(0, 5).every((s) => s !== 429)).toBe(true)
      expect(statuses[5]).toBe(429)
    })
  })

  it('asks a person who is not signed in to log in first, and comes back', async () => {
    const res = await call('/oauth/device?user_code=BCDFGHJK')
    expect(res.status).toBe(302)
    expect(res.headers.get('Location')).toBe(
      `/login?next=${encodeURIComponent('/oauth/device?user_code=BCDFGHJK')}`,
    )
  })
})

describe('an access token exchanged for an API key (RFC 8693)', () => {
  const exchange = (token: string, fields: Record<string, string> = {}) =>
    tokenRequest({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: token,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      requested_token_type: 'urn:canvas:params:oauth:token-type:api-key',
      ...fields,
    })

  it("makes a key of the CLI's grant, bound to its workspace, and ends the grant", async () => {
    const owner = await newAccount()
    const { tokens } = await connect(owner, 'canvas:read canvas:write', await cliClient())
    const res = await exchange(tokens.access_token, { key_name: 'svc on laptop' })
    expect(res.status).toBe(200)
    const made = await json(res)
    expect(made).toEqual({
      access_token: expect.stringMatching(/^svc_/),
      issued_token_type: 'urn:canvas:params:oauth:token-type:api-key',
      token_type: 'Bearer',
      scope: 'canvas:read canvas:write',
    })
    const me = await json(await call('/v1/me', { key: made.access_token }))
    expect(me.key).toMatchObject({ name: 'svc on laptop', scopes: ['read', 'write'] })
    expect(me.workspace.workspace_id).toBe(owner.workspaceId)
    // The grant is over: its token opens nothing, and cannot be exchanged again.
    expect((await mcp(tokens.access_token, 'tools/list')).status).toBe(401)
    expect((await json(await exchange(tokens.access_token))).error).toBe('invalid_grant')
    // Its end is in the log, beside the key it became.
    const audit = await json(await call('/v1/audit', { key: owner.key }))
    const actions = audit.events.map((e: { action: string }) => e.action)
    expect(actions).toEqual(expect.arrayContaining(['key.created', 'oauth.disconnected']))
  })

  it("refuses any app but the deployment's own CLI, whose grant stands", async () => {
    const owner = await newAccount()
    const { tokens } = await connect(owner, 'canvas:read canvas:write')
    const res = await exchange(tokens.access_token)
    expect(res.status).toBe(400)
    expect(await json(res)).toEqual({
      error: 'unauthorized_client',
      error_description: expect.stringMatching(/own CLI/),
    })
    expect((await mcp(tokens.access_token, 'tools/list')).status).toBe(200)
    const keys = await env.DB.prepare('SELECT COUNT(*) AS n FROM api_keys WHERE user_id = ?')
      .bind(owner.userId)
      .first<{ n: number }>()
    expect(keys!.n).toBe(1)
  })

  it('makes one key of one grant, however many exchanges run at once', async () => {
    const owner = await newAccount()
    const { tokens } = await connect(owner, 'canvas:read canvas:write', await cliClient())
    const answers = await Promise.all([1, 2, 3, 4].map(() => exchange(tokens.access_token)))
    const statuses = answers.map((r) => r.status).sort()
    expect(statuses).toEqual([200, 400, 400, 400])
    const keys = await env.DB.prepare(
      "SELECT COUNT(*) AS n FROM api_keys WHERE user_id = ? AND origin = 'exchange'",
    )
      .bind(owner.userId)
      .first<{ n: number }>()
    expect(keys!.n).toBe(1)
  })

  it("acts in the grant's workspace only, with the member's role", async () => {
    const owner = await newAccount()
    const team = await newTeam(owner, 'Other team')
    const { person: viewer } = await joinedAs(owner, team, 'viewer')
    // The owner's key from signing in to their personal workspace reaches no other.
    const { tokens } = await connect(owner, 'canvas:read canvas:write', await cliClient())
    const key = (await json(await exchange(tokens.access_token))).access_token
    const invite = await call(`/v1/workspaces/${team}/invites`, {
      method: 'POST',
      key,
      json: { role: 'owner' },
    })
    expect(invite.status).toBe(403)
    expect((await json(invite)).error.message).toMatch(/acts only there/)
    expect((await call(`/v1/workspaces/${team}/members`, { key })).status).toBe(403)
    expect((await call(`/v1/workspaces/${owner.workspaceId}/members`, { key })).status).toBe(200)
    // A viewer's approval of write becomes a key that reads only.
    await call('/auth/switch', {
      method: 'POST',
      cookie: viewer.cookie,
      json: { workspace_id: team },
    })
    const asViewer = await connect(viewer, 'canvas:read canvas:write', await cliClient())
    const viewerKey = (await json(await exchange(asViewer.tokens.access_token))).access_token
    const me = await json(await call('/v1/me', { key: viewerKey }))
    expect(me.workspace).toMatchObject({ workspace_id: team, role: 'viewer' })
    expect(me.key.scopes).toEqual(['read'])
  })

  it('refuses anything but an access token for an API key', async () => {
    const owner = await newAccount()
    const { tokens } = await connect(owner, undefined, await cliClient())
    const wrongType = await exchange(tokens.access_token, {
      requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    })
    expect(wrongType.status).toBe(400)
    expect((await json(wrongType)).error).toBe('invalid_request')
    const refreshAsSubject = await exchange(tokens.refresh_token)
    expect((await json(refreshAsSubject)).error).toBe('invalid_grant')
    expect((await json(await exchange(owner.key))).error).toBe('invalid_grant')
    expect((await json(await exchange('a:b:c'))).error).toBe('invalid_grant')
    const named = await exchange(tokens.access_token, { key_name: '' })
    expect(await json(named)).toEqual({
      error: 'invalid_request',
      error_description: 'key_name: must not be empty',
    })
    // Still standing after all that.
    expect((await mcp(tokens.access_token, 'tools/list')).status).toBe(200)
  })
})

describe('revoking an API key by holding it (RFC 7009)', () => {
  it('ends the key at once and records it; an unknown one is answered alike', async () => {
    const owner = await newAccount()
    const key = await keyIn(owner, owner.workspaceId, 'laptop')
    expect((await call('/v1/me', { key })).status).toBe(200)
    const res = await tokenRequest({ token: key })
    expect(res.status).toBe(200)
    expect((await call('/v1/me', { key })).status).toBe(401)
    expect((await tokenRequest({ token: key })).status).toBe(200)
    expect((await tokenRequest({ token: 'svc_' + 'x'.repeat(40) })).status).toBe(200)
    const audit = await json(await call('/v1/audit?action=key.revoked', { key: owner.key }))
    expect(audit.events).toEqual([
      expect.objectContaining({
        actor: expect.objectContaining({ kind: 'key', name: 'laptop' }),
        details: { name: 'laptop' },
      }),
    ])
  })
})
