import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import {
  call,
  csrfOf,
  errorOf,
  formPost,
  json,
  newAccount,
  newCanvas,
  type Account,
} from './support/api'
import {
  approvedCode,
  connect,
  grantOf,
  subjectOf,
  kvKeys,
  mcp,
  refresh,
  REDIRECT,
  HTTPS,
  tokenRequest,
  tool,
  type Tokens,
} from './support/oauth'
import { withinOneWindow } from './support/limit-window'
import { joinedAs, keyIn, newTeam } from './support/teams'

// /mcp under an access token: the workspace of the person who approved, the scopes they granted,
// and not a moment longer than the grant stands, whatever the library's store still holds.

describe('an access token on /mcp', () => {
  it('publishes and reads in its own workspace, and sees nothing of another', async () => {
    const owner = await newAccount()
    const other = await newAccount()
    const theirs = await newCanvas(other.key, 'not yours')
    const { tokens } = await connect(owner)
    const published = await tool(tokens.access_token, 'publish', {
      content: '# from a chat app',
      filename: 'chat.md',
    })
    expect(published.isError).toBeUndefined()
    const mine = published.structuredContent
    expect(mine.owner_user_id).toBe(owner.userId)
    const listed = await tool(tokens.access_token, 'list_canvases')
    expect(listed.structuredContent.canvases.map((c: any) => c.canvas_id)).toEqual([mine.canvas_id])
    const peek = await tool(tokens.access_token, 'get_canvas', { canvas_id: theirs.canvas_id })
    expect(peek.isError).toBe(true)
    expect(peek.content[0].text).toBe('canvas_not_found: canvas not found')
    // And the canvas is the owner's, seen by the owner's key.
    const byKey = await call(`/v1/canvases/${mine.canvas_id}`, { key: owner.key })
    expect(byKey.status).toBe(200)
  })

  it('of a read-only grant reads, lists no changing tool, and a change asks for write access', async () => {
    const owner = await newAccount()
    const canvas = await newCanvas(owner.key, 'keep me')
    const { tokens } = await connect(owner, 'canvas:read')
    expect(tokens.scope).toBe('canvas:read')
    const read = await tool(tokens.access_token, 'read_canvas', { canvas_id: canvas.canvas_id })
    expect(read.structuredContent.text).toBe('keep me')
    const changes: [string, Record<string, unknown>][] = [
      ['publish', { content: 'x', filename: 'x.txt' }],
      ['update_canvas', { canvas_id: canvas.canvas_id, title: 'renamed' }],
      ['delete_canvas', { canvas_id: canvas.canvas_id }],
      ['share_canvas', { canvas_id: canvas.canvas_id }],
    ]
    const listed = await json(await mcp(tokens.access_token, 'tools/list'))
    const names = listed.result.tools.map((t: { name: string }) => t.name)
    expect(names).toContain('read_canvas')
    for (const [name] of changes) expect(names, name).not.toContain(name)
    // A step-up answer (RFC 6750's insufficient_scope): the app may ask the person again.
    for (const [name, args] of changes) {
      const res = await mcp(tokens.access_token, 'tools/call', { name, arguments: args })
      expect(res.status, name).toBe(403)
      expect(res.headers.get('WWW-Authenticate'), name).toBe(
        `Bearer error="insufficient_scope", scope="canvas:read canvas:write", ` +
          `resource_metadata="${HTTPS}/.well-known/oauth-protected-resource"`,
      )
      expect(await json(res), name).toEqual(errorOf('forbidden', /granted read access only/))
    }
    const after = await json(await call(`/v1/canvases/${canvas.canvas_id}`, { key: owner.key }))
    expect(after.title).toBe(canvas.title)
  })

  it('of a viewer, granted write, is told its role stops the change: no step-up to loop on', async () => {
    const owner = await newAccount()
    const team = await newTeam(owner, 'Readers')
    const canvas = await newCanvas(await keyIn(owner, team, 'team key'), 'team notes')
    const { person } = await joinedAs(owner, team, 'viewer')
    await call('/auth/switch', {
      method: 'POST',
      cookie: person.cookie,
      json: { workspace_id: team },
    })
    const { tokens } = await connect(person, 'canvas:read canvas:write')
    const res = await mcp(tokens.access_token, 'tools/call', {
      name: 'update_canvas',
      arguments: { canvas_id: canvas.canvas_id, title: 'renamed' },
    })
    expect(res.status).toBe(200)
    const { result } = await json(res)
    expect(result.isError).toBe(true)
    expect(result.content[0].text).toMatch(/^forbidden: .*role; yours in “.+” is viewer/)
  })

  it('takes idempotency_key like a key does: a retry changes nothing twice', async () => {
    const owner = await newAccount()
    const { tokens } = await connect(owner)
    const args = { content: 'once', filename: 'once.txt', idempotency_key: crypto.randomUUID() }
    const first = await tool(tokens.access_token, 'publish', args)
    const again = await tool(tokens.access_token, 'publish', args)
    expect(again.structuredContent.canvas_id).toBe(first.structuredContent.canvas_id)
    const list = await json(await call('/v1/canvases', { key: owner.key }))
    expect(list.canvases).toHaveLength(1)
  })

  it('stops at once when D1 says its grant ended, whatever KV still holds', async () => {
    const owner = await newAccount()
    const { tokens } = await connect(owner)
    expect((await mcp(tokens.access_token, 'tools/list')).status).toBe(200)
    // As another location would see it: the library's records still there, the grant revoked.
    await env.DB.prepare(
      'UPDATE oauth_grants SET revoked_at = ?, expires_at = ? WHERE grant_id = ?',
    )
      .bind(Date.now(), Date.now(), grantOf(tokens.access_token))
      .run()
    const subject = subjectOf(tokens.access_token)
    expect(await kvKeys(`token:${subject}:${grantOf(tokens.access_token)}:`)).toHaveLength(1)
    const res = await mcp(tokens.access_token, 'tools/list')
    expect(res.status).toBe(401)
    expect(await json(res)).toEqual(errorOf('unauthorized', 'invalid or expired access token'))
  })

  it('is limited per grant, like a key', async () => {
    const owner = await newAccount()
    const list = (token: string) =>
      call('https://canvas.test/mcp', {
        method: 'POST',
        env: { API_LIMITER: env.API_LIMITER_SMALL },
        headers: {
          Authorization: `Bearer ${token}`,
          Accept: 'application/json, text/event-stream',
        },
        json: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      })
    // A new grant each run: what a straddling run sent after the minute turned counts in the next.
    await withinOneWindow(async () => {
      const { tokens } = await connect(owner)
      const statuses = []
      for (let i = 0; i < 6; i++) statuses.push((await list(tokens.access_token)).status)
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429])
      // Another grant of the same person has a budget of its own.
      const other = await connect(owner)
      expect((await list(other.tokens.access_token)).status).toBe(200)
    })
  })
})

describe('connected apps in Settings', () => {
  const appsOf = async (cookie: string) => {
    const html = await (await call('/settings', { cookie })).text()
    return [
      ...html.matchAll(
        /<tr id="app-([^"]+)"><td class="primary-cell"><bdi dir="auto">([^<]*)<\/bdi><\/td>(.*?)<\/tr>/g,
      ),
    ].map(([, grantId, name, rest]) => ({ grantId, name, rest }))
  }

  it('lists each app with its scopes, when it connected and was last used', async () => {
    const owner = await newAccount()
    const other = await newAccount()
    const before = Date.now()
    const { tokens } = await connect(owner, 'canvas:read')
    let [app] = await appsOf(owner.cookie)
    expect(app.grantId).toBe(grantOf(tokens.access_token))
    expect(app.name).toBe('Test App')
    expect(app.rest).toContain('<td data-label="Access">read</td>')
    // When it connected, as people read it, the moment itself in the markup.
    const connected =
      /<td data-label="Connected" class="nowrap"><time datetime="([^"]+)"[^>]*>just now<\/time>/.exec(
        app.rest,
      )
    expect(connected).not.toBeNull()
    expect(Date.parse(connected![1])).toBeGreaterThanOrEqual(before)
    expect(Date.parse(connected![1])).toBeLessThanOrEqual(Date.now())
    expect(app.rest).toContain('<td data-label="Last used" class="nowrap">never</td>')
    await mcp(tokens.access_token, 'tools/list')
    ;[app] = await appsOf(owner.cookie)
    expect(app.rest).not.toContain('never')
    expect(await appsOf(other.cookie)).toEqual([])
  })

  it('disconnecting one ends its tokens at once, and leaves the others', async () => {
    const owner = await newAccount()
    const gone = await connect(owner)
    const kept = await connect(owner)
    const grantId = grantOf(gone.tokens.access_token)
    const subject = subjectOf(gone.tokens.access_token)
    expect(await kvKeys(`grant:${subject}:${grantId}`)).toHaveLength(1)
    const res = await call(`/settings/apps/${grantId}/revoke`, {
      ...formPost({ _csrf: await csrfOf(owner.cookie) }),
      cookie: owner.cookie,
    })
    expect(res.status).toBe(302)
    expect((await mcp(gone.tokens.access_token, 'tools/list')).status).toBe(401)
    expect((await refresh(gone.client, gone.tokens.refresh_token)).status).toBe(400)
    expect((await mcp(kept.tokens.access_token, 'tools/list')).status).toBe(200)
    expect((await appsOf(owner.cookie)).map((a) => a.grantId)).toEqual([
      grantOf(kept.tokens.access_token),
    ])
    // The library's records of it are gone after the response.
    expect(await kvKeys(`grant:${subject}:${grantId}`)).toEqual([])
    expect(await kvKeys(`token:${subject}:${grantId}:`)).toEqual([])
  })

  it('another person cannot disconnect it, nor a form without the CSRF token', async () => {
    const owner = await newAccount()
    const other = await newAccount()
    const { tokens } = await connect(owner)
    const grantId = grantOf(tokens.access_token)
    const foreign = await call(`/settings/apps/${grantId}/revoke`, {
      ...formPost({ _csrf: await csrfOf(other.cookie) }),
      cookie: other.cookie,
    })
    expect(foreign.status).toBe(302)
    const forged = await call(`/settings/apps/${grantId}/revoke`, {
      ...formPost({}),
      cookie: owner.cookie,
    })
    expect(forged.status).toBe(403)
    expect((await mcp(tokens.access_token, 'tools/list')).status).toBe(200)
  })

  it('approving the same app again replaces its connection', async () => {
    const owner = await newAccount()
    const first = await connect(owner)
    const { tokens } = await connectAgain(owner, first.client.client_id)
    expect((await mcp(first.tokens.access_token, 'tools/list')).status).toBe(401)
    expect((await mcp(tokens.access_token, 'tools/list')).status).toBe(200)
    expect((await appsOf(owner.cookie)).map((a) => a.grantId)).toEqual([
      grantOf(tokens.access_token),
    ])
  })
})

/** The same app (client) connected again by the same person. */
async function connectAgain(account: Account, clientId: string) {
  const client = { client_id: clientId, redirect_uris: [REDIRECT] }
  const { code, verifier } = await approvedCode(account, client)
  const res = await tokenRequest({
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    client_id: clientId,
    code_verifier: verifier,
  })
  return { tokens: (await json(res)) as Tokens }
}
