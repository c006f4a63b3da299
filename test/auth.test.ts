import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { HIDDEN_CHARACTERS } from '../src/lib/names'
import { call, errorOf, json, newAccount, sessionCookie, SETUP_TOKEN } from './support/api'

const password = 'correct horse battery'

describe('signup', () => {
  it('creates the user, a workspace and a session cookie', async () => {
    const res = await call('/auth/signup', {
      method: 'POST',
      json: { email: '  Ada@Example.com ', password, setup_token: SETUP_TOKEN },
    })
    expect(res.status).toBe(201)
    const body = await json(res)
    expect(body).toEqual({
      user: { user_id: expect.stringMatching(/^[A-Za-z0-9]{20}$/), email: 'ada@example.com' },
      workspace: {
        workspace_id: expect.stringMatching(/^[A-Za-z0-9]{20}$/),
        name: 'ada',
        role: 'owner',
      },
    })
    const cookie = res.headers.get('Set-Cookie')!
    expect(cookie).toMatch(/^canvas_session=[A-Za-z0-9]{43}; /)
    expect(cookie).toContain('HttpOnly')
    expect(cookie).toContain('SameSite=Lax')
    expect(cookie).not.toContain('Secure')
    const user = await env.DB.prepare('SELECT * FROM users WHERE email = ?')
      .bind('ada@example.com')
      .first<any>()
    expect(user.password_hash).toMatch(/^pbkdf2-sha256\$100000\$[0-9a-f]{32}\$[0-9a-f]{64}$/)
    expect(user.password_hash).not.toContain(password)
    const session = await env.DB.prepare('SELECT * FROM sessions WHERE user_id = ?')
      .bind(user.user_id)
      .first<any>()
    // Only a hash of the cookie's token is stored.
    expect(cookie).not.toContain(session.session_hash)
  })

  it('marks the cookie Secure over https', async () => {
    const res = await call('https://canvas.test/auth/signup', {
      method: 'POST',
      json: { email: 'secure@example.com', password, setup_token: SETUP_TOKEN },
    })
    expect(res.status).toBe(201)
    expect(res.headers.get('Set-Cookie')).toContain('Secure')
  })

  it('refuses an email that is taken, in any case', async () => {
    const account = await newAccount()
    const res = await call('/auth/signup', {
      method: 'POST',
      json: { email: account.email.toUpperCase(), password },
    })
    expect(res.status).toBe(409)
    expect(await json(res)).toEqual(
      errorOf('conflict', 'email: an account with this email already exists'),
    )
  })

  it('is closed to a second user unless SIGNUP is open', async () => {
    await newAccount()
    const res = await call('/auth/signup', {
      method: 'POST',
      json: { email: 'late@example.com', password },
      env: { SIGNUP: 'closed' },
    })
    expect(res.status).toBe(403)
    expect(await json(res)).toEqual(errorOf('signup_closed', 'signup is closed on this server'))
    const row = await env.DB.prepare('SELECT 1 FROM users WHERE email = ?')
      .bind('late@example.com')
      .first()
    expect(row).toBeNull()
  })

  it('validates email and password', async () => {
    const cases: [unknown, string][] = [
      [{ email: 'nope', password }, 'email: must be an email address'],
      [{ email: 'a@example.com', password: 'short' }, 'password: must be at least 8 characters'],
      [{ email: 'a@example.com' }, 'password: Invalid input: expected string, received undefined'],
      [{ email: 'a@example.com', password, admin: true }, 'Unrecognized key: "admin"'],
    ]
    for (const [body, message] of cases) {
      const res = await call('/auth/signup', { method: 'POST', json: body })
      expect(res.status).toBe(400)
      expect(await json(res)).toEqual(errorOf('invalid_request', message))
    }
  })

  it('answers malformed JSON and wrong content types with 400', async () => {
    const malformed = await call('/auth/signup', {
      method: 'POST',
      body: '{"email":',
      headers: { 'Content-Type': 'application/json' },
    })
    expect(malformed.status).toBe(400)
    expect(await json(malformed)).toEqual(
      errorOf('invalid_request', 'malformed JSON in request body'),
    )
    const form = await call('/auth/signup', {
      method: 'POST',
      body: 'email=a',
      headers: { 'Content-Type': 'text/plain' },
    })
    expect(form.status).toBe(400)
    expect(await json(form)).toEqual(
      errorOf('invalid_request', 'Content-Type must be application/json'),
    )
  })

  it('refuses cross-origin posts', async () => {
    const res = await call('/auth/signup', {
      method: 'POST',
      json: { email: 'csrf@example.com', password },
      headers: { Origin: 'https://evil.example' },
    })
    expect(res.status).toBe(403)
    expect(await json(res)).toEqual(errorOf('forbidden', 'cross-origin request refused'))
    const site = await call('/auth/logout', {
      method: 'POST',
      headers: { 'Sec-Fetch-Site': 'cross-site' },
    })
    expect(site.status).toBe(403)
    const same = await call('/auth/signup', {
      method: 'POST',
      json: { email: 'csrf@example.com', password },
      headers: { Origin: 'http://canvas.test', 'Sec-Fetch-Site': 'same-origin' },
    })
    expect(same.status).toBe(201)
  })
})

describe('login and logout', () => {
  it('logs in with the right password and answers wrong ones alike', async () => {
    const account = await newAccount()
    const ok = await call('/auth/login', {
      method: 'POST',
      json: { email: account.email, password },
    })
    expect(ok.status).toBe(200)
    expect(await json(ok)).toEqual({
      user: { user_id: account.userId, email: account.email },
      workspace: { workspace_id: account.workspaceId, name: expect.any(String), role: 'owner' },
    })
    expect(sessionCookie(ok)).not.toBe(account.cookie)

    for (const body of [
      { email: account.email, password: 'wrong password' },
      { email: 'nobody@example.com', password },
    ]) {
      const res = await call('/auth/login', { method: 'POST', json: body })
      expect(res.status).toBe(401)
      expect(await json(res)).toEqual(errorOf('unauthorized', 'wrong email or password'))
      expect(res.headers.get('Set-Cookie')).toBeNull()
    }
  })

  it('logout ends the session server side', async () => {
    const account = await newAccount()
    expect((await call('/auth/keys', { cookie: account.cookie })).status).toBe(200)
    const res = await call('/auth/logout', { method: 'POST', cookie: account.cookie })
    expect(res.status).toBe(200)
    expect(await json(res)).toEqual({ success: true })
    expect(res.headers.get('Set-Cookie')).toMatch(/canvas_session=;.*Max-Age=0/)
    const after = await call('/auth/keys', { cookie: account.cookie })
    expect(after.status).toBe(401)
    expect(await json(after)).toEqual(errorOf('unauthorized', 'not logged in'))
  })

  it('an expired session is not accepted', async () => {
    const account = await newAccount()
    await env.DB.prepare('UPDATE sessions SET expires_at = 1 WHERE user_id = ?')
      .bind(account.userId)
      .run()
    const res = await call('/auth/keys', { cookie: account.cookie })
    expect(res.status).toBe(401)
  })
})

describe('API keys', () => {
  it('creates a key shown once, lists it by prefix and revokes it', async () => {
    const account = await newAccount()
    const res = await call('/auth/keys', {
      method: 'POST',
      cookie: account.cookie,
      json: { name: 'laptop', scopes: ['read'] },
    })
    expect(res.status).toBe(201)
    const created = await json(res)
    expect(created).toEqual({
      key_id: expect.stringMatching(/^[A-Za-z0-9]{20}$/),
      name: 'laptop',
      prefix: created.key.slice(0, 12),
      scopes: ['read'],
      created_at: expect.stringMatching(/Z$/),
      last_used_at: null,
      key: expect.stringMatching(/^svc_[A-Za-z0-9]{40}$/),
    })
    const stored = await env.DB.prepare('SELECT * FROM api_keys WHERE key_id = ?')
      .bind(created.key_id)
      .first<any>()
    expect(JSON.stringify(stored)).not.toContain(created.key)

    const list = await json(await call('/auth/keys', { cookie: account.cookie }))
    const listed = list.keys.find((k: any) => k.key_id === created.key_id)
    expect(listed).toEqual({ ...created, key: undefined })
    expect(JSON.stringify(list)).not.toContain(created.key)

    const revoke = await call(`/auth/keys/${created.key_id}`, {
      method: 'DELETE',
      cookie: account.cookie,
    })
    expect(revoke.status).toBe(200)
    expect(await json(revoke)).toEqual({ success: true })
    const again = await call(`/auth/keys/${created.key_id}`, {
      method: 'DELETE',
      cookie: account.cookie,
    })
    expect(again.status).toBe(404)
    expect(await json(again)).toEqual(errorOf('not_found', 'key_id: no such API key'))
    const me = await call('/v1/me', { key: created.key })
    expect(me.status).toBe(401)
    expect(await json(me)).toEqual(errorOf('unauthorized', 'invalid or revoked API key'))
  })

  it('write implies read; default scopes are read and write', async () => {
    const account = await newAccount()
    for (const [scopes, expected] of [
      [undefined, ['read', 'write']],
      [['write'], ['read', 'write']],
    ] as const) {
      const res = await call('/auth/keys', {
        method: 'POST',
        cookie: account.cookie,
        json: { name: 'k', ...(scopes ? { scopes } : {}) },
      })
      expect((await json(res)).scopes).toEqual(expected)
    }
  })

  it('rejects bad key requests', async () => {
    const account = await newAccount()
    const cases: [unknown, string][] = [
      [{ name: '' }, 'name: must not be empty'],
      [{ name: 'x', scopes: ['admin'] }, 'scopes.0: must be read or write'],
      [{ name: 'x', scopes: [] }, 'scopes: must name at least one scope'],
      [{ name: 'a\u0000b' }, 'name: must not contain control characters'],
      [{ name: 'a\ud83db' }, 'name: must not contain unpaired surrogates (half of a character)'],
      // Names shown beside a person's in Settings and the audit log: none may pass for another.
      ...['ci\u202eyek', 'ci\u200b', 'ci\u2028key', '\ufeffci', 'ci\u2066x'].map(
        (name): [unknown, string] => [{ name }, `name: ${HIDDEN_CHARACTERS}`],
      ),
      [{ name: 'k'.repeat(101) }, 'name: must be at most 100 characters'],
    ]
    for (const [body, message] of cases) {
      const res = await call('/auth/keys', { method: 'POST', cookie: account.cookie, json: body })
      expect(res.status).toBe(400)
      expect(await json(res)).toEqual(errorOf('invalid_request', message))
    }
  })

  it('cannot revoke a key of another workspace', async () => {
    const a = await newAccount()
    const b = await newAccount()
    const created = await json(
      await call('/auth/keys', { method: 'POST', cookie: a.cookie, json: { name: 'a' } }),
    )
    const res = await call(`/auth/keys/${created.key_id}`, { method: 'DELETE', cookie: b.cookie })
    expect(res.status).toBe(404)
    expect((await call('/v1/me', { key: created.key })).status).toBe(200)
  })

  it('needs a session', async () => {
    const res = await call('/auth/keys', { method: 'POST', json: { name: 'x' } })
    expect(res.status).toBe(401)
    expect(await json(res)).toEqual(errorOf('unauthorized', 'not logged in'))
  })
})
