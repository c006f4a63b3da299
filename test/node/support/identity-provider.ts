import { createHash, randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type JWK } from 'jose'

// An identity provider for the tests: a real OpenID Connect provider and a Cloudflare Access-style
// certs endpoint on 127.0.0.1, run in Node (by the workers project's global setup, and by the
// browser tests), signing with keys of its own through jose. Nothing on the service's side is
// stood in for: it discovers, redirects, exchanges and verifies as it would against Google.
//
//   GET  /.well-known/openid-configuration, /jwks, /authorize, POST /token    OpenID Connect
//   GET  /<team>/cdn-cgi/access/certs                                        Access's keys
//   POST /people/<client_id>   {claims, tamper}        who the next sign-in of that client is
//   POST /access-token         {claims, tamper, team}  an Access token of the team <origin>/<team>
//
// `tamper` makes a token wrong in one way: 'audience', 'issuer', 'expired', 'nonce', 'state',
// 'impostor' (signed by another key under the same kid), 'none' (unsigned), 'unknown-kid' (a key
// the certs do not list), 'rotated' (a key the certs list only from now on).

export type Tamper =
  | 'audience'
  | 'issuer'
  | 'expired'
  | 'nonce'
  | 'state'
  | 'impostor'
  | 'none'
  | 'unknown-kid'
  | 'rotated'

type Person = { claims: Record<string, unknown>; tamper?: Tamper }
type Code = {
  person: Person
  clientId: string
  redirectUri: string
  nonce?: string
  challenge: string
}
type Key = { kid: string; privateKey: CryptoKey; jwk: JWK }

export type IdentityProvider = { url: string; stop: () => Promise<void> }

export const CLIENT_SECRET = 'test-oidc-client-secret'

export async function startIdentityProvider(): Promise<IdentityProvider> {
  const main = await newKey('main')
  const impostor = await newKey('main')
  const stranger = await newKey('stranger')
  const rotated = await newKey('rotated')
  const listed: Key[] = [main]
  const people = new Map<string, Person>()
  const codes = new Map<string, Code>()
  const sockets = new Set<Socket>()
  let origin = ''

  const sign = async (claims: Record<string, unknown>, tamper?: Tamper) => {
    const now = Math.floor(Date.now() / 1000)
    const full: Record<string, unknown> = { iat: now, exp: now + 600, ...claims }
    if (tamper === 'expired') Object.assign(full, { iat: now - 7200, exp: now - 3600 })
    if (tamper === 'audience') full.aud = 'another-audience'
    if (tamper === 'issuer') full.iss = 'http://127.0.0.1:9/another-issuer'
    if (tamper === 'none') return new UnsecuredJWT(full).encode()
    if (tamper === 'rotated' && !listed.includes(rotated)) listed.push(rotated)
    const key =
      tamper === 'impostor'
        ? impostor
        : tamper === 'unknown-kid'
          ? stranger
          : tamper === 'rotated'
            ? rotated
            : main
    return new SignJWT(full)
      .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' })
      .sign(key.privateKey)
  }

  const routes: Record<string, (req: IncomingMessage, url: URL) => Promise<Answer>> = {
    'GET /.well-known/openid-configuration': async () => [
      200,
      {
        issuer: origin,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        jwks_uri: `${origin}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        scopes_supported: ['openid', 'email', 'profile'],
      },
    ],
    'GET /jwks': async () => [200, { keys: listed.map((key) => key.jwk) }],
    'POST /access-token': async (req) => {
      const { claims, tamper, team } = JSON.parse(await bodyOf(req)) as Person & { team?: string }
      const now = Math.floor(Date.now() / 1000)
      const iss = team ? `${origin}/${team}` : origin
      const token = await sign({ iss, sub: randomId(), type: 'app', nbf: now, ...claims }, tamper)
      return [200, { token }]
    },
    'GET /authorize': async (_req, url) => {
      const clientId = url.searchParams.get('client_id') ?? ''
      const redirectUri = url.searchParams.get('redirect_uri') ?? ''
      const person = people.get(clientId)
      const challenge = url.searchParams.get('code_challenge')
      if (!person || !redirectUri || url.searchParams.get('response_type') !== 'code') {
        return [400, { error: 'invalid_request' }]
      }
      if (!challenge || url.searchParams.get('code_challenge_method') !== 'S256') {
        return [400, { error: 'invalid_request', error_description: 'PKCE S256 required' }]
      }
      const code = randomId()
      const nonce = url.searchParams.get('nonce') ?? undefined
      codes.set(code, { person, clientId, redirectUri, nonce, challenge })
      const back = new URL(redirectUri)
      back.searchParams.set('code', code)
      const state = url.searchParams.get('state')
      if (state) back.searchParams.set('state', person.tamper === 'state' ? `${state}x` : state)
      back.searchParams.set('iss', origin)
      return [302, back.href]
    },
    'POST /token': async (req) => {
      const form = new URLSearchParams(await bodyOf(req))
      const client = clientOf(req, form)
      const code = codes.get(form.get('code') ?? '')
      codes.delete(form.get('code') ?? '')
      if (!client || client.secret !== CLIENT_SECRET) return [401, { error: 'invalid_client' }]
      if (!code || code.clientId !== client.id || code.redirectUri !== form.get('redirect_uri')) {
        return [400, { error: 'invalid_grant' }]
      }
      const verifier = form.get('code_verifier') ?? ''
      if (createHash('sha256').update(verifier).digest('base64url') !== code.challenge) {
        return [400, { error: 'invalid_grant', error_description: 'PKCE verification failed' }]
      }
      const { claims, tamper } = code.person
      const nonce = tamper === 'nonce' ? 'another-nonce' : code.nonce
      const idToken = await sign({ iss: origin, aud: client.id, nonce, ...claims }, tamper)
      return [
        200,
        { access_token: randomId(), token_type: 'Bearer', expires_in: 600, id_token: idToken },
      ]
    },
  }

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://provider')
    try {
      const person = /^\/people\/([^/]+)$/.exec(url.pathname)
      if (req.method === 'POST' && person) {
        people.set(decodeURIComponent(person[1]), JSON.parse(await bodyOf(req)) as Person)
        return answer(res, [204, null])
      }
      // Every team under this address shares the keys: /<team>/cdn-cgi/access/certs.
      if (req.method === 'GET' && url.pathname.endsWith('/cdn-cgi/access/certs')) {
        return answer(res, [200, { keys: listed.map((key) => key.jwk) }])
      }
      const route = routes[`${req.method} ${url.pathname}`]
      answer(res, route ? await route(req, url) : [404, { error: 'not_found' }])
    } catch (err) {
      answer(res, [500, { error: String(err) }])
    }
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url: origin,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

type Answer = [number, unknown]

function answer(res: ServerResponse, [status, body]: Answer) {
  if (status === 302) {
    res.writeHead(302, { Location: String(body) }).end()
    return
  }
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' })
  res.end(body === null ? '' : JSON.stringify(body))
}

async function newKey(kid: string): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true })
  return {
    kid,
    privateKey,
    jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' },
  }
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/** The client of a token request: its Basic credentials, or its form's. */
function clientOf(req: IncomingMessage, form: URLSearchParams) {
  const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')
  if (basic) {
    const [id, secret] = Buffer.from(basic[1], 'base64').toString('utf8').split(':')
    return { id: decodeURIComponent(id), secret: decodeURIComponent(secret ?? '') }
  }
  const id = form.get('client_id')
  return id ? { id, secret: form.get('client_secret') ?? '' } : null
}

const randomId = () => randomBytes(16).toString('hex')
