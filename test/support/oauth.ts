import { env } from 'cloudflare:test'
import { expect } from 'vitest'
import { call, csrfOf, json, type Account } from './api'

// A chat app connecting to Canvas, step by step, in the workers tests: OAuth is served over https
// (or on the machine itself), so these requests name https://canvas.test.

export const HTTPS = 'https://canvas.test'
export const REDIRECT = 'http://127.0.0.1:7777/callback'

export type Client = { client_id: string; redirect_uris: string[]; client_name?: string }

/** Dynamic registration (RFC 7591) of a public client, with `fields` over the defaults. */
export async function register(fields: Record<string, unknown> = {}): Promise<Client> {
  const res = await registration(fields)
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${await res.text()}`)
  return json(res)
}

export const registration = (fields: Record<string, unknown> = {}) =>
  call(`${HTTPS}/oauth/register`, {
    method: 'POST',
    json: {
      client_name: 'Test App',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...fields,
    },
  })

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')

/** A PKCE verifier and its S256 challenge. */
export async function pkce() {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)))
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))
  return { verifier, challenge: base64url(new Uint8Array(digest)) }
}

/** An authorization request; a parameter given as undefined is left out. */
export function authorizeUrl(clientId: string, params: Record<string, string | undefined> = {}) {
  const url = new URL(`${HTTPS}/oauth/authorize`)
  const all = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    state: 'state-1',
    scope: 'canvas:read canvas:write',
    ...params,
  }
  for (const [name, value] of Object.entries(all))
    if (value !== undefined) url.searchParams.set(name, value)
  return url.href
}

/** The person's answer on the consent page, as the page's own form posts it. */
export async function decide(
  account: Account,
  url: string,
  decision: 'approve' | 'deny' = 'approve',
) {
  const body = new URLSearchParams({ _csrf: await csrfOf(account.cookie), decision })
  return call(url, {
    method: 'POST',
    cookie: account.cookie,
    body: body.toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  })
}

/** The code and the rest of the redirect back to the app after an approval. */
export function redirectOf(res: Response) {
  expect(res.status).toBe(302)
  return new URL(res.headers.get('Location')!)
}

/** A request to the token endpoint; the fields are form-encoded. */
export const tokenRequest = (fields: Record<string, string>) =>
  call(`${HTTPS}/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams(fields).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  })

export type Tokens = {
  access_token: string
  refresh_token: string
  expires_in: number
  scope: string
  token_type: string
}

/** A code approved by the person for the client: the redirect's `code`, and its verifier. */
export async function approvedCode(account: Account, client: Client, scope?: string) {
  const { verifier, challenge } = await pkce()
  const url = authorizeUrl(client.client_id, {
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...(scope ? { scope } : {}),
  })
  const code = redirectOf(await decide(account, url)).searchParams.get('code')!
  return { code, verifier }
}

/**
 * The deployment's own CLI as a client (`cli_client_id` in the metadata, made on first asking):
 * the one whose sign-ins become API keys.
 */
export async function cliClient(): Promise<Client> {
  const res = await call(`${HTTPS}/.well-known/oauth-authorization-server`)
  expect(res.status).toBe(200)
  const { cli_client_id } = await json(res)
  return { client_id: cli_client_id, redirect_uris: ['http://127.0.0.1/callback'] }
}

/** The whole flow: registration (or the client given), approval, code exchange. */
export async function connect(account: Account, scope?: string, given?: Client) {
  const client = given ?? (await register())
  const { code, verifier } = await approvedCode(account, client, scope)
  const res = await tokenRequest({
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    client_id: client.client_id,
    code_verifier: verifier,
  })
  expect(res.status).toBe(200)
  return { client, tokens: (await json(res)) as Tokens }
}

export const refresh = (client: Client, refreshToken: string) =>
  tokenRequest({
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: client.client_id,
  })

/** One JSON-RPC message to the MCP endpoint under a Bearer token (an access token or a key). */
export function mcp(token: string | null, method: string, params?: unknown) {
  return call(`${HTTPS}/mcp`, {
    method: 'POST',
    headers: {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      Accept: 'application/json, text/event-stream',
    },
    json: { jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) },
  })
}

/** A tool's result over MCP, under `token`. */
export async function tool(token: string, name: string, args: Record<string, unknown> = {}) {
  const res = await mcp(token, 'tools/call', { name, arguments: args })
  expect(res.status).toBe(200)
  return (await json(res)).result as {
    isError?: boolean
    content: { text: string }[]
    structuredContent?: any
  }
}

/** The library's grant id in one of its tokens or codes (`<user>:<grant>:<secret>`). */
export const grantOf = (token: string) => token.split(':')[1]
/** Whom the library files a token's grant under: the grant's subject, the token's first part. */
export const subjectOf = (token: string) => token.split(':')[0]

/** D1's row of a grant. */
export const grantRow = (grantId: string) =>
  env.DB.prepare('SELECT * FROM oauth_grants WHERE grant_id = ?').bind(grantId).first<any>()

/** The library's records under a prefix of its KV namespace. */
export async function kvKeys(prefix: string) {
  return (await env.OAUTH_KV.list({ prefix })).keys.map((k) => k.name)
}
