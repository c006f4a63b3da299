import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { call, csrfOf, formPost, newAccount } from './support/api'
import { newTeam } from './support/teams'
import {
  authorizeUrl,
  decide,
  pkce,
  redirectOf,
  register,
  REDIRECT,
  type Client,
} from './support/oauth'

// The authorize step: a page of the web app. Who asks, where the access goes and what it allows;
// Allow or Deny, CSRF-protected; a person not signed in logs in and comes back to the same
// request. What cannot be trusted (the app, its redirect URI) is refused here and sent nowhere;
// what can goes back to the app as an OAuth error, with its state.

const grants = async (userId: string) =>
  (await env.DB.prepare('SELECT COUNT(*) AS n FROM oauth_grants WHERE user_id = ?')
    .bind(userId)
    .first<{ n: number }>())!.n

async function request(client: Client, params: Record<string, string | undefined> = {}) {
  const { challenge } = await pkce()
  return authorizeUrl(client.client_id, {
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...params,
  })
}

describe('the consent page', () => {
  it('lets the person pick the workspace and the access, whatever the app asked', async () => {
    const owner = await newAccount()
    const team = await newTeam(owner, 'Design team')
    const client = await register()
    const url = await request(client, { scope: 'canvas:read canvas:write' })
    const html = await (await call(url, { cookie: owner.cookie })).text()
    expect(html).toContain('<option value="' + team + '">Design team</option>')
    expect(html).toMatch(/value="write" checked/)
    const answer = await call(url, {
      ...formPost({
        _csrf: await csrfOf(owner.cookie),
        decision: 'approve',
        workspace_id: team,
        access: 'read',
      }),
      cookie: owner.cookie,
    })
    const code = redirectOf(answer).searchParams.get('code')!
    const row = await env.DB.prepare(
      'SELECT workspace_id, scopes FROM oauth_grants WHERE grant_id = ?',
    )
      .bind(code.split(':')[1])
      .first<{ workspace_id: string; scopes: string }>()
    expect(row).toEqual({ workspace_id: team, scopes: expect.not.stringContaining('write') })
    // A workspace that is not theirs grants nothing.
    const other = await newAccount()
    const refused = await call(await request(client), {
      ...formPost({
        _csrf: await csrfOf(owner.cookie),
        decision: 'approve',
        workspace_id: other.workspaceId,
      }),
      cookie: owner.cookie,
    })
    expect(refused.status).toBe(404)
    expect(await grants(owner.userId)).toBe(1)
  })

  it('shows the app’s name (escaped), where the access goes, and the scopes', async () => {
    const owner = await newAccount()
    const client = await register({ client_name: '<b>Evil</b> "App"' })
    const page = await call(await request(client), { cookie: owner.cookie })
    expect(page.status).toBe(200)
    expect(page.headers.get('Cache-Control')).toBe('no-store')
    const html = await page.text()
    expect(html).toContain(
      'Allow <bdi dir="auto">&lt;b&gt;Evil&lt;/b&gt; &quot;App&quot;</bdi> to use your Canvas?',
    )
    expect(html).not.toContain('<b>Evil</b>')
    expect(html).toContain('its name is not verified')
    expect(html).toContain('Access will be sent to <strong>127.0.0.1</strong>')
    expect(html).toContain('an app on your computer')
    expect(html).toContain('<code>canvas:read</code>')
    expect(html).toContain('<code>canvas:write</code>')
    const readOnly = await call(await request(client, { scope: 'canvas:read' }), {
      cookie: owner.cookie,
    })
    // Asked for reading only, reading is chosen; writing is offered, the person's to give.
    const readOnlyPage = await readOnly.text()
    expect(readOnlyPage).toMatch(/value="read" checked/)
    expect(readOnlyPage).not.toMatch(/value="write" checked/)
  })

  it('lets its form send the browser to the app’s origin, and no other page does', async () => {
    const owner = await newAccount()
    const client = await register({ redirect_uris: ['https://chat.example/api/callback'] })
    const url = await request(client, { redirect_uri: 'https://chat.example/api/callback' })
    const page = await call(url, { cookie: owner.cookie })
    const csp = page.headers.get('Content-Security-Policy')!
    expect(csp).toContain("form-action 'self' https://chat.example;")
    expect(csp).toContain("frame-ancestors 'none'")
    const settings = await call('/settings', { cookie: owner.cookie })
    expect(settings.headers.get('Content-Security-Policy')).toContain("form-action 'self';")
  })

  it('sends a person not signed in to log in and back to the whole request', async () => {
    const owner = await newAccount()
    const client = await register()
    const url = new URL(await request(client))
    const away = await call(url.href)
    expect(away.status).toBe(302)
    const login = new URL(away.headers.get('Location')!, url)
    expect(login.searchParams.get('next')).toBe(url.pathname + url.search)
    const back = await call(
      `${url.origin}/login`,
      formPost({
        email: owner.email,
        password: owner.password,
        next: login.searchParams.get('next')!,
      }),
    )
    expect(back.headers.get('Location')).toBe(url.pathname + url.search)
  })
})

describe('the person’s answer', () => {
  it('approved: back to the app’s exact redirect URI with a code, state unchanged, issuer', async () => {
    const owner = await newAccount()
    const client = await register()
    const state = 'a state with spaces & symbols/+=?'
    const back = redirectOf(await decide(owner, await request(client, { state })))
    expect(back.origin + back.pathname).toBe(REDIRECT)
    expect(back.searchParams.get('state')).toBe(state)
    expect(back.searchParams.get('iss')).toBe('https://canvas.test')
    expect(back.searchParams.get('code')).toMatch(/^[^:]+:[^:]+:[^:]+$/)
    expect(await grants(owner.userId)).toBe(1)
  })

  it('denied: error=access_denied to the redirect URI with the state, and no grant', async () => {
    const owner = await newAccount()
    const client = await register()
    const back = redirectOf(await decide(owner, await request(client, { state: 's1' }), 'deny'))
    expect(back.origin + back.pathname).toBe(REDIRECT)
    expect(back.searchParams.get('error')).toBe('access_denied')
    expect(back.searchParams.get('state')).toBe('s1')
    expect(back.searchParams.get('code')).toBeNull()
    expect(await grants(owner.userId)).toBe(0)
  })

  it('without this session’s CSRF token, or from another site, is refused and grants nothing', async () => {
    const owner = await newAccount()
    const other = await newAccount()
    const client = await register()
    const url = await request(client)
    const forged: { cookie: string; fields: Record<string, string> }[] = [
      { cookie: owner.cookie, fields: { decision: 'approve' } },
      { cookie: owner.cookie, fields: { decision: 'approve', _csrf: '0'.repeat(32) } },
      // Another person's token is no good for this session.
      {
        cookie: owner.cookie,
        fields: { decision: 'approve', _csrf: await csrfOf(other.cookie) },
      },
    ]
    for (const { cookie, fields } of forged) {
      const res = await call(url, { ...formPost(fields), cookie })
      expect(res.status).toBe(403)
      expect(res.headers.get('Location')).toBeNull()
    }
    const crossSite = await call(url, {
      ...formPost({ decision: 'approve', _csrf: await csrfOf(owner.cookie) }),
      cookie: owner.cookie,
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Origin: 'https://evil.example',
      },
    })
    expect(crossSite.status).toBe(403)
    expect(await grants(owner.userId)).toBe(0)
  })
})

describe('what the request itself may not be', () => {
  it('an app or redirect URI not registered: refused on the page, sent nowhere', async () => {
    const owner = await newAccount()
    const client = await register()
    const hostile = [
      { client_id: 'no-such-client' },
      { redirect_uri: 'https://evil.example/callback' },
      { redirect_uri: 'http://127.0.0.1:7777/other' },
      { redirect_uri: 'http://127.0.0.1:7777/callback/' },
      { redirect_uri: 'http://localhost:7777/callback' },
      { redirect_uri: 'http://127.0.0.1:7777/callback?next=https://evil.example' },
      { redirect_uri: undefined },
    ]
    for (const params of hostile) {
      const url = await request(client, params)
      for (const res of [await call(url, { cookie: owner.cookie }), await decide(owner, url)]) {
        expect(res.status, JSON.stringify(params)).toBe(400)
        expect(res.headers.get('Location')).toBeNull()
        expect(await res.text()).toContain('This app cannot connect')
      }
    }
    expect(await grants(owner.userId)).toBe(0)
  })

  it('a loopback redirect URI may name any port, as OAuth 2.1 says for native apps', async () => {
    const owner = await newAccount()
    const client = await register()
    const other = 'http://127.0.0.1:45123/callback'
    const back = redirectOf(await decide(owner, await request(client, { redirect_uri: other })))
    expect(back.origin + back.pathname).toBe(other)
  })

  it('no PKCE, or plain: back to the app with invalid_request, and no grant', async () => {
    const owner = await newAccount()
    const client = await register()
    const verifier = 'v'.repeat(50)
    for (const pkceParams of [
      { code_challenge: undefined, code_challenge_method: undefined },
      { code_challenge: verifier, code_challenge_method: 'plain' },
      { code_challenge: verifier, code_challenge_method: undefined },
      { code_challenge: undefined, code_challenge_method: 'S256' },
    ]) {
      const url = authorizeUrl(client.client_id, { ...pkceParams, state: 'st' })
      for (const res of [await call(url, { cookie: owner.cookie }), await decide(owner, url)]) {
        const back = redirectOf(res)
        expect(back.origin + back.pathname).toBe(REDIRECT)
        expect(back.searchParams.get('error'), JSON.stringify(pkceParams)).toBe('invalid_request')
        expect(back.searchParams.get('state')).toBe('st')
        expect(back.searchParams.get('code')).toBeNull()
      }
    }
    expect(await grants(owner.userId)).toBe(0)
  })

  it('a scope Canvas does not have: back to the app with invalid_scope', async () => {
    const owner = await newAccount()
    const client = await register()
    const url = await request(client, { scope: 'canvas:read admin' })
    const back = redirectOf(await call(url, { cookie: owner.cookie }))
    expect(back.searchParams.get('error')).toBe('invalid_scope')
    expect(back.searchParams.get('state')).toBe('state-1')
  })
})
