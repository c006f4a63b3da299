import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { call, json, newAccount } from './support/api'
import { faultyBindings } from './support/faults'
import {
  approvedCode,
  connect,
  grantOf,
  subjectOf,
  grantRow,
  HTTPS,
  kvKeys,
  mcp,
  refresh,
  register,
  REDIRECT,
  tokenRequest,
  type Client,
  type Tokens,
} from './support/oauth'

// The token endpoint: a code with its PKCE verifier for tokens, once; an access token lives an
// hour at most; refresh tokens rotate, and one used twice ends its whole grant. Errors are OAuth's.

const exchange = (
  client: Client,
  code: string,
  verifier: string | undefined,
  redirect = REDIRECT,
) =>
  tokenRequest({
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirect,
    client_id: client.client_id,
    ...(verifier === undefined ? {} : { code_verifier: verifier }),
  })

const invalidGrant = (description: string | RegExp) => ({
  error: 'invalid_grant',
  error_description:
    typeof description === 'string' ? description : expect.stringMatching(description),
})

/** Whether an access token opens the MCP endpoint. */
const opens = async (token: string) => (await mcp(token, 'tools/list')).status

describe('the code', () => {
  it('with its verifier: an access token of at most an hour, a refresh token, the scopes', async () => {
    const owner = await newAccount()
    const { tokens } = await connect(owner)
    expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'canvas:read canvas:write' })
    expect(tokens.expires_in).toBeGreaterThan(0)
    expect(tokens.expires_in).toBeLessThanOrEqual(3600)
    expect(tokens.refresh_token).toMatch(/^[^:]+:[^:]+:[^:]+$/)
    expect(await opens(tokens.access_token)).toBe(200)
    // Stored hashed: neither token appears in the library's store.
    const stored = await env.OAUTH_KV.list()
    for (const key of stored.keys) {
      const value = (await env.OAUTH_KV.get(key.name)) ?? ''
      expect(value).not.toContain(tokens.access_token.split(':')[2])
      expect(value).not.toContain(tokens.refresh_token.split(':')[2])
    }
    // The review's fifth finding: tokens began with the person's id. Now with the grant's subject.
    for (const token of [tokens.access_token, tokens.refresh_token]) {
      expect(token).not.toContain(owner.userId)
    }
    const row = await env.DB.prepare('SELECT subject, user_id FROM oauth_grants WHERE grant_id = ?')
      .bind(tokens.access_token.split(':')[1])
      .first<{ subject: string; user_id: string }>()
    expect(row!.user_id).toBe(owner.userId)
    expect(tokens.access_token.split(':')[0]).toBe(row!.subject)
  })

  it('wrong, missing or plain verifier: refused, and the code still works with the right one', async () => {
    const owner = await newAccount()
    const client = await register()
    const { code, verifier } = await approvedCode(owner, client)
    const wrong = await exchange(
      client,
      code,
      verifier.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')),
    )
    expect(wrong.status).toBe(400)
    expect(await json(wrong)).toEqual(invalidGrant('Invalid PKCE code_verifier'))
    const missing = await exchange(client, code, undefined)
    expect(missing.status).toBe(400)
    expect(await json(missing)).toMatchObject({ error: 'invalid_request' })
    // The challenge itself, as a `plain` client would send it.
    const challengeAsVerifier = await exchange(client, code, 'x'.repeat(43))
    expect(challengeAsVerifier.status).toBe(400)
    expect((await exchange(client, code, verifier)).status).toBe(200)
  })

  it('with another redirect URI than its request’s, or by another client: refused', async () => {
    const owner = await newAccount()
    const client = await register()
    const other = await register()
    const { code, verifier } = await approvedCode(owner, client)
    const redirect = await exchange(client, code, verifier, 'http://127.0.0.1:9999/callback')
    expect(redirect.status).toBe(400)
    expect(await json(redirect)).toMatchObject({ error: 'invalid_grant' })
    const stolen = await exchange(other, code, verifier)
    expect(stolen.status).toBe(400)
    expect(await json(stolen)).toEqual(invalidGrant('Client ID mismatch'))
    expect((await exchange(client, code, verifier)).status).toBe(200)
  })

  it('used twice: refused, and the tokens the first use gave stop working', async () => {
    const owner = await newAccount()
    const client = await register()
    const { code, verifier } = await approvedCode(owner, client)
    const first = await exchange(client, code, verifier)
    const tokens: Tokens = await json(first)
    expect(await opens(tokens.access_token)).toBe(200)
    const again = await exchange(client, code, verifier)
    expect(again.status).toBe(400)
    expect(await json(again)).toEqual(
      invalidGrant('this authorization code was used already: its grant is revoked'),
    )
    expect(await opens(tokens.access_token)).toBe(401)
    expect((await refresh(client, tokens.refresh_token)).status).toBe(400)
    expect((await grantRow(grantOf(code)))!.revoked_at).not.toBeNull()
    // The library's records of the grant are gone too (they were there: the test would see them).
    expect(await kvKeys(`grant:${subjectOf(code)}:${grantOf(code)}`)).toEqual([])
  })

  it('two exchanges at once: exactly one gets tokens', async () => {
    const owner = await newAccount()
    const client = await register()
    const { code, verifier } = await approvedCode(owner, client)
    const answers = await Promise.all([1, 2, 3].map(() => exchange(client, code, verifier)))
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400, 400])
  })

  it('expired: refused', async () => {
    const owner = await newAccount()
    const client = await register()
    const { code, verifier } = await approvedCode(owner, client)
    // Ten minutes on, as D1 sees it (the library's own record expires by KV's TTL).
    await env.DB.prepare('UPDATE oauth_grants SET expires_at = ? WHERE grant_id = ?')
      .bind(Date.now() - 1, grantOf(code))
      .run()
    const res = await exchange(client, code, verifier)
    expect(res.status).toBe(400)
    expect(await json(res)).toEqual(invalidGrant('invalid, expired or revoked authorization code'))
  })
})

describe('the access token', () => {
  it('stops working when its hour is up', async () => {
    const owner = await newAccount()
    const { tokens } = await connect(owner)
    const [, grantId] = tokens.access_token.split(':')
    const [key] = await kvKeys(`token:${subjectOf(tokens.access_token)}:${grantId}:`)
    const record = JSON.parse((await env.OAUTH_KV.get(key))!)
    expect(record.expiresAt - record.createdAt).toBeLessThanOrEqual(3600)
    record.expiresAt = Math.floor(Date.now() / 1000) - 1
    await env.OAUTH_KV.put(key, JSON.stringify(record))
    expect(await opens(tokens.access_token)).toBe(401)
  })
})

describe('refresh tokens', () => {
  it('rotate: each use gives a new one and an access token; the grant lives on', async () => {
    const owner = await newAccount()
    const { client, tokens } = await connect(owner)
    const first = await refresh(client, tokens.refresh_token)
    expect(first.status).toBe(200)
    const next: Tokens = await json(first)
    expect(next.refresh_token).not.toBe(tokens.refresh_token)
    expect(next.expires_in).toBeLessThanOrEqual(3600)
    expect(await opens(next.access_token)).toBe(200)
    const second: Tokens = await json(await refresh(client, next.refresh_token))
    expect(await opens(second.access_token)).toBe(200)
    // The grant stands another idle period from the last refresh.
    const row = await grantRow(grantOf(tokens.access_token))
    expect(row.expires_at).toBeGreaterThan(Date.now() + 29 * 24 * 3600_000)
  })

  it('one used twice ends the whole grant: every token of it stops working', async () => {
    const owner = await newAccount()
    const { client, tokens } = await connect(owner)
    const next: Tokens = await json(await refresh(client, tokens.refresh_token))
    const reuse = await refresh(client, tokens.refresh_token)
    expect(reuse.status).toBe(400)
    expect(await json(reuse)).toEqual(
      invalidGrant('this refresh token was used already: its grant is revoked'),
    )
    expect(await opens(next.access_token)).toBe(401)
    expect(await opens(tokens.access_token)).toBe(401)
    const after = await refresh(client, next.refresh_token)
    expect(after.status).toBe(400)
    expect(await json(after)).toEqual(invalidGrant('invalid, expired or revoked refresh token'))
  })

  it('a refresh whose tokens D1 fails to record: the retry gets tokens, the grant stands', async () => {
    const owner = await newAccount()
    const { client, tokens } = await connect(owner)
    // The refresh's D1 round trips: the claim, then the record of what the library answered.
    const { bindings, state } = faultyBindings({ at: 2, when: 'before' })
    const failed = await call(`${HTTPS}/oauth/token`, {
      method: 'POST',
      env: bindings,
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: client.client_id,
      }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    })
    expect(state.tripped).toBe('D1 batch (before)')
    expect(failed.status).toBe(500)
    expect(await json(failed)).toMatchObject({ error: 'server_error' })
    const retry = await refresh(client, tokens.refresh_token)
    expect(retry.status).toBe(200)
    expect(await opens(((await json(retry)) as Tokens).access_token)).toBe(200)
  })

  it('of another client, or not one at all: refused, and the grant goes on', async () => {
    const owner = await newAccount()
    const { client, tokens } = await connect(owner)
    const other = await register()
    const stolen = await refresh(other, tokens.refresh_token)
    expect(stolen.status).toBe(400)
    expect(await json(stolen)).toMatchObject({ error: 'invalid_grant' })
    for (const junk of ['nope', `${owner.userId}:x:y`, tokens.access_token]) {
      const res = await refresh(client, junk)
      expect(res.status, junk).toBe(400)
      expect(await json(res)).toMatchObject({ error: 'invalid_grant' })
    }
    expect((await refresh(client, tokens.refresh_token)).status).toBe(200)
  })
})

describe('the token endpoint', () => {
  it('revokes (RFC 7009): any token of a grant ends it', async () => {
    const owner = await newAccount()
    for (const which of ['access_token', 'refresh_token'] as const) {
      const { client, tokens } = await connect(owner)
      const res = await tokenRequest({ token: tokens[which], client_id: client.client_id })
      expect(res.status, which).toBe(200)
      expect(await opens(tokens.access_token), which).toBe(401)
      expect((await refresh(client, tokens.refresh_token)).status, which).toBe(400)
      expect((await grantRow(grantOf(tokens.access_token)))!.revoked_at, which).not.toBeNull()
    }
  })

  it('answers every error in OAuth’s own form', async () => {
    const owner = await newAccount()
    const { client, tokens } = await connect(owner)
    const refreshToken = tokens.refresh_token
    const cases: [Record<string, string>, number, string][] = [
      [{ grant_type: 'password', client_id: client.client_id }, 400, 'unsupported_grant_type'],
      [{ grant_type: 'refresh_token', refresh_token: refreshToken }, 401, 'invalid_client'],
      [
        { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'nobody' },
        401,
        'invalid_client',
      ],
      [{ grant_type: 'authorization_code', code: 'a:b:c' }, 400, 'invalid_grant'],
      [{ client_id: client.client_id }, 400, 'unsupported_grant_type'],
    ]
    for (const [fields, status, error] of cases) {
      const res = await tokenRequest(fields)
      expect(res.status, JSON.stringify(fields)).toBe(status)
      expect(res.headers.get('Cache-Control')).toBe('no-store')
      expect(await json(res)).toEqual({ error, error_description: expect.any(String) })
    }
    // Refused for want of a client, the refresh token was given back: it still works.
    expect((await refresh(client, refreshToken)).status).toBe(200)
  })
})
