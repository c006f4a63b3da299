import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { call, json, newAccount } from './support/api'
import { withinOneWindow } from './support/limit-window'
import { CIMD, CIMD_REDIRECT } from './support/client-documents'
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
    expect(html).toContain('Allow Metadata Document App to use your Canvas?')
    expect(html).toContain('Published by <strong>client.example</strong>')
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
