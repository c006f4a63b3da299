import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { call, json, newAccount } from './support/api'
import { freshAddress, withinOneWindow } from './support/limit-window'
import { CIMD, CIMD_REDIRECT, freshDocument, INSIDE_BASE } from './support/client-documents'
import {
  authorizeUrl,
  HTTPS,
  kvKeys,
  pkce,
  register,
  registration,
  tokenRequest,
} from './support/oauth'

// How an app becomes a client: dynamic registration (RFC 7591), or its client ID metadata
// document's URL as its client_id. Hostile metadata is refused in OAuth's own form, and stores
// nothing.

describe('dynamic client registration', () => {
  it('registers a public client with its redirect URIs', async () => {
    const res = await registration({ client_name: 'Chat App' })
    expect(res.status).toBe(201)
    expect(res.headers.get('Cache-Control')).toBe('no-store')
    const client = await json(res)
    expect(client).toMatchObject({
      client_name: 'Chat App',
      redirect_uris: ['http://127.0.0.1:7777/callback'],
      token_endpoint_auth_method: 'none',
    })
    expect(client.client_id).toMatch(/^\S{16,}$/)
    expect(await kvKeys(`client:${client.client_id}`)).toHaveLength(1)
  })

  it('refuses redirect URIs a code must never go to, storing nothing', async () => {
    const before = await kvKeys('client:')
    const hostile = [
      ['javascript:alert(1)'],
      ['http://evil.example/callback'],
      ['https://app.example/callback#fragment'],
      ['https://user:secret@app.example/callback'],
      ['data:text/html,hi'],
      ['//evil.example/callback'],
      [],
    ]
    for (const redirect_uris of hostile) {
      const res = await registration({ redirect_uris })
      const where = JSON.stringify(redirect_uris)
      expect(res.status, where).toBe(400)
      const body = await json(res)
      expect(body, where).toEqual({
        error: expect.stringMatching(/^invalid_(redirect_uri|client_metadata)$/),
        error_description: expect.any(String),
      })
    }
    expect(await kvKeys('client:')).toEqual(before)
  })

  it('answers a malformed or oversized body in OAuth’s form', async () => {
    const malformed = await call(`${HTTPS}/oauth/register`, {
      method: 'POST',
      body: '{"redirect_uris":',
      headers: { 'Content-Type': 'application/json' },
    })
    expect(malformed.status).toBe(400)
    expect(await json(malformed)).toEqual({
      error: 'invalid_request',
      error_description: expect.any(String),
    })
    const huge = await registration({ client_name: 'x'.repeat(20_000) })
    expect(huge.status).toBe(413)
    expect(await json(huge)).toEqual({
      error: 'invalid_request',
      error_description: 'the registration is over the limit of 16384 bytes',
    })
  })

  it('is rate-limited per address, in OAuth’s form', async () => {
    const limited = { AUTH_LIMITER: env.AUTH_LIMITER_SMALL }
    await withinOneWindow(async (ip) => {
      const answers = []
      for (let i = 0; i < 6; i++) {
        answers.push(
          await call(`${HTTPS}/oauth/register`, {
            method: 'POST',
            ip,
            env: limited,
            json: { client_name: 'Flood', redirect_uris: ['https://app.example/cb'] },
          }),
        )
      }
      expect(answers.map((r) => r.status)).toEqual([201, 201, 201, 201, 201, 429])
      expect(answers[5].headers.get('Retry-After')).toBe('60')
      expect(await json(answers[5])).toMatchObject({ error: 'temporarily_unavailable' })
    })
  })
})

// The review's fourth finding: a client_name of 15,000 characters with bidi overrides and
// zero-width characters was accepted, and turned the consent page's heading around.
describe('an app’s name', () => {
  it('is at most 100 characters, without invisible or direction-changing characters', async () => {
    const before = await kvKeys('client:')
    const refused: [string, RegExp][] = [
      ['\u202e'.repeat(3) + 'x'.repeat(15_000) + '\u200b', /must be at most 100 characters/],
      ['x'.repeat(101), /must be at most 100 characters/],
      ...['\u202e', '\u202d', '\u2067', '\u200e', '\u200b', '\u200c', '\ufeff', '\u2029'].map(
        (hidden): [string, RegExp] => [
          `Claude${hidden}`,
          /must not contain invisible or direction-changing/,
        ],
      ),
    ]
    for (const [name, why] of refused) {
      const res = await registration({ client_name: name })
      expect(res.status, JSON.stringify(name)).toBe(400)
      expect(await json(res)).toEqual({
        error: 'invalid_client_metadata',
        error_description: expect.stringMatching(new RegExp(`^client_name: ${why.source}`)),
      })
    }
    expect(await kvKeys('client:')).toEqual(before)
    const longest = await registration({ client_name: 'x'.repeat(100) })
    expect(longest.status).toBe(201)
  })

  it('is shown isolated from the text around it', async () => {
    const owner = await newAccount()
    const client = await register({ client_name: 'עוזר Canvas' })
    const { challenge } = await pkce()
    const page = await call(
      authorizeUrl(client.client_id, { code_challenge: challenge, code_challenge_method: 'S256' }),
      { cookie: owner.cookie },
    )
    expect(await page.text()).toContain(
      'Allow <bdi dir="auto">עוזר Canvas</bdi> to use your Canvas?',
    )
  })
})

describe('client ID metadata documents', () => {
  it('take the document’s URL as client_id: its name and verified domain on the consent page', async () => {
    const owner = await newAccount()
    const { challenge } = await pkce()
    const url = authorizeUrl(CIMD.good, {
      redirect_uri: CIMD_REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    })
    const page = await call(url, { cookie: owner.cookie })
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('Allow <bdi dir="auto">Metadata Document App</bdi> to use your Canvas?')
    expect(html).toContain('Published by <strong>client.example.com</strong>')
  })

  it('refuse a document that is wrong in any way, on the page and at the token endpoint', async () => {
    const owner = await newAccount()
    const { challenge } = await pkce()
    for (const [what, clientId] of Object.entries(CIMD.bad)) {
      const url = authorizeUrl(clientId, {
        redirect_uri: CIMD_REDIRECT,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      })
      const page = await call(url, { cookie: owner.cookie })
      expect(page.status, what).toBe(400)
      expect(page.headers.get('Location'), what).toBeNull()
      expect(await page.text(), what).toContain('This app cannot connect')
      const token = await tokenRequest({
        grant_type: 'authorization_code',
        code: 'a:b:c',
        client_id: clientId,
        code_verifier: 'x'.repeat(43),
      })
      expect(token.status, what).toBeGreaterThanOrEqual(400)
      expect(await json(token), what).toMatchObject({ error: expect.stringMatching(/^invalid_/) })
    }
  })

  it('a registered client cannot pass for a document’s URL', async () => {
    const client = await register({ client_name: 'Plain' })
    expect(client.client_id).not.toMatch(/^https:/)
  })
})

// The review's second finding: a client_id that is a URL made the Worker fetch it for anyone,
// before any login, and under `wrangler dev` toward loopback in five spellings. The same guard as
// webhooks now stands before every such fetch, with limits per client network and per host.
describe('fetching a client’s metadata document', () => {
  const strict = { WEBHOOK_ALLOW_LOCAL: '' }
  const token = (clientId: string, init: { env?: object; ip?: string; basic?: boolean } = {}) =>
    call(`${HTTPS}/oauth/token`, {
      method: 'POST',
      // No code: the library is asked, and looks the client up before it says the code is missing.
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code_verifier: 'x'.repeat(43),
        ...(init.basic ? {} : { client_id: clientId }),
      }).toString(),
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        ...(init.basic
          ? { Authorization: `Basic ${btoa(`${encodeURIComponent(clientId)}:`)}` }
          : {}),
      },
      env: { ...strict, ...init.env },
      ip: init.ip,
    })
  const refusal = (why: RegExp) => ({
    error: 'invalid_client',
    error_description: expect.stringMatching(why),
  })

  it('is refused toward this machine, a private network or a reserved name, in every spelling', async () => {
    const loopback = [
      'https://127.0.0.1/client.json',
      'https://localhost/client.json',
      'https://sub.localhost/client.json',
      'https://[::1]/client.json',
      'https://2130706433/client.json',
      'https://127.1/client.json',
      'https://0x7f.0.0.1/client.json',
      'https://0177.0.0.1/client.json',
      'https://[::ffff:127.0.0.1]/client.json',
      'https://[::ffff:7f00:1]/client.json',
      'https://127.0.0.1./client.json',
    ]
    const private_ = [
      'https://10.0.0.1/client.json',
      'https://169.254.169.254/latest/meta-data',
      'https://192.168.1.1/client.json',
      'https://[fd00::1]/client.json',
      'https://[fe80::1]/client.json',
      'https://[64:ff9b::a00:1]/client.json',
      'https://0.0.0.0/client.json',
    ]
    const names = [
      'https://metadata.internal/client.json',
      'https://printer.local/client.json',
      'https://intranet/client.json',
      'https://client.test/client.json',
      'https://client.example/client.json',
    ]
    const cases: [string, RegExp][] = [
      ...loopback.map((url): [string, RegExp] => [url, /loopback|local name|private/]),
      ...private_.map((url): [string, RegExp] => [url, /private, loopback or reserved/]),
      ...names.map((url): [string, RegExp] => [url, /local name|public name/]),
      ['http://client.example.com/oauth/client.json', /must use https/],
      ['https://user:pw@client.example.com/oauth/client.json', /user name or password/],
      ['https://client.example.com:22/oauth/client.json', /port/],
      [`${INSIDE_BASE}/client.json`, /resolve to a private, loopback or reserved address/],
    ]
    for (const [url, why] of cases) {
      for (const basic of [false, true]) {
        const res = await token(url, { basic })
        expect(res.status, url).toBe(401)
        expect(await json(res), url).toEqual(refusal(why))
      }
      // Revocation takes a client_id too.
      const revoke = await call(`${HTTPS}/oauth/token`, {
        method: 'POST',
        body: new URLSearchParams({ token: 'a:b:c', client_id: url }).toString(),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        env: strict,
      })
      expect(revoke.status, url).toBe(401)
    }
    // The consent page says why, and sends nobody anywhere.
    const owner = await newAccount()
    const { challenge } = await pkce()
    const page = await call(
      authorizeUrl('https://2130706433/client.json', {
        redirect_uri: CIMD_REDIRECT,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }),
      { cookie: owner.cookie, env: strict },
    )
    expect(page.status).toBe(400)
    expect(page.headers.get('Location')).toBeNull()
    const html = await page.text()
    expect(html).toContain('This app cannot connect')
    expect(html).toContain('must not be a private, loopback or reserved address')
  })

  it('a public document is fetched as before', async () => {
    const res = await token(CIMD.good)
    // Fetched and accepted as a client: the missing code is what fails.
    expect(await json(res)).toMatchObject({ error: 'invalid_request' })
  })

  it('fetches are limited per client network and per host; a document kept in cache is no fetch', async () => {
    const limited = { CLIENT_DOCUMENT_LIMITER: env.AUTH_LIMITER_SMALL }
    // A cacheable document, fetched once: the requests after it cost no fetch and are not counted.
    const cached = freshDocument('cached.json')
    await withinOneWindow(async (ip) => {
      const errors = []
      for (let i = 0; i < 8; i++)
        errors.push((await json(await token(cached, { ip, env: limited }))).error)
      expect(errors).toEqual(Array(8).fill('invalid_request'))
    })
    // A document that must not be kept is fetched each time: the sixth fetch from one network is
    // refused; from another network, its host's own budget is spent already.
    await withinOneWindow(async (ip) => {
      const url = freshDocument()
      const answers = []
      for (let i = 0; i < 6; i++) answers.push(await token(url, { ip, env: limited }))
      expect(answers.map((r) => r.status)).toEqual([400, 400, 400, 400, 400, 429])
      expect(await json(answers[5])).toMatchObject({ error: 'temporarily_unavailable' })
      const elsewhere = await token(url, { ip: freshAddress(), env: limited })
      expect(elsewhere.status).toBe(429)
      // Another host, from that other network: both budgets whole.
      expect((await token(freshDocument(), { ip: freshAddress(), env: limited })).status).toBe(400)
    })
    // One network asking for five hosts' documents spends its own budget, whatever the hosts.
    await withinOneWindow(async (ip) => {
      const statuses = []
      for (let i = 0; i < 6; i++)
        statuses.push((await token(freshDocument(), { ip, env: limited })).status)
      expect(statuses).toEqual([400, 400, 400, 400, 400, 429])
    })
  })
})
