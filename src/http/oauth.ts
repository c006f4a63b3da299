import type { OAuthAuthorizationServer } from '@cloudflare/workers-oauth-provider'
import type { Context } from 'hono'
import { GRANT_IDLE_MS, OAUTH_SCOPES, type LibraryGrant } from '../domain/oauth/grants'
import {
  documentHostProblem,
  documentUrlProblem,
  isDocumentUrl,
} from '../domain/oauth/client-documents'
import { ownCliClient } from '../domain/oauth/cli'
import { AppError } from '../lib/errors'
import { logError } from '../lib/log'
import type { Bindings } from '../lib/settings'
import { afterResponse, fromThisMachine, requestId, type AppEnv } from './context'
import { clientNetworkOf, limit } from './limits'

// Canvas as an OAuth 2.1 authorization server for its own MCP endpoint, on Cloudflare's
// workers-oauth-provider (docs/agents.md says why that library). It keeps clients,
// grants and tokens (hashed) in OAUTH_KV; D1 (domain/oauth/grants.ts) says whether a grant still
// stands. The library is loaded by the first request that needs it: the Worker's start and every
// other request do not pay for it.

export const MCP_PATH = '/mcp'
export const AUTHORIZE_PATH = '/oauth/authorize'
export const TOKEN_PATH = '/oauth/token'
export const REGISTER_PATH = '/oauth/register'
export const DEVICE_AUTHORIZATION_PATH = '/oauth/device_authorization'
/** The web app's page where a person types a device's code (src/web/device.tsx). */
export const DEVICE_PAGE_PATH = '/oauth/device'
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource'
export const SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server'

/** The protocol's JSON routes (the authorize step is a page of the web app). */
export const OAUTH_API_PATHS = [TOKEN_PATH, REGISTER_PATH, DEVICE_AUTHORIZATION_PATH]

/** An access token lives at most this long; the app refreshes it with its refresh token. */
export const ACCESS_TOKEN_TTL_S = 3600

type Library = typeof import('@cloudflare/workers-oauth-provider')
let library: Promise<Library> | undefined
export const oauthLibrary = () => (library ??= import('@cloudflare/workers-oauth-provider'))

/**
 * The origin OAuth is served on for this request: https, or http on the machine itself (`npm run
 * dev`); null elsewhere, since an issuer and its tokens must never travel in clear.
 */
export function oauthOrigin(c: Context): string | null {
  const url = new URL(c.req.url)
  return url.protocol === 'https:' || fromThisMachine(c) ? url.origin : null
}

/** This request's OAuth origin; refused (404) where OAuth is not served. */
export function requireOAuthOrigin(c: Context): string {
  const origin = oauthOrigin(c)
  if (!origin) throw new AppError('not_found', 'OAuth is served over https only')
  return origin
}

// One server per origin the Worker answers on (its workers.dev name, a custom domain): the issuer
// is the origin a client reached, as RFC 8414 and the MCP specification want.
const servers = new Map<string, Promise<OAuthAuthorizationServer<Bindings>>>()
const MAX_SERVERS = 8

export function authorizationServer(origin: string): Promise<OAuthAuthorizationServer<Bindings>> {
  let server = servers.get(origin)
  if (!server) {
    server = oauthLibrary().then(
      ({ OAuthAuthorizationServer }) =>
        new OAuthAuthorizationServer<Bindings>({
          issuer: origin,
          resources: [origin + MCP_PATH],
          authorizeEndpoint: origin + AUTHORIZE_PATH,
          tokenEndpoint: origin + TOKEN_PATH,
          clientRegistrationEndpoint: origin + REGISTER_PATH,
          scopesSupported: [...OAUTH_SCOPES],
          clientIdMetadataDocumentEnabled: true,
          accessTokenTTL: ACCESS_TOKEN_TTL_S,
          // A grant lives while its app keeps refreshing it (D1's expiry moves the same way).
          refreshTokenTTL: GRANT_IDLE_MS / 1000,
          refreshTokenIdleTTL: GRANT_IDLE_MS / 1000,
          onError: ({ status, code, internal }) => {
            if (status >= 500) logError({ event: 'oauth_error', code, ...internal })
          },
        }),
    )
    if (servers.size >= MAX_SERVERS) servers.clear()
    servers.set(origin, server)
    // A server that could not be built is not kept: the next request tries again.
    server.catch(() => servers.delete(origin))
  }
  return server
}

// The library keeps the documents it fetched in this cache (its CIMD cache), as long as their
// Cache-Control allows (at most a week): a client_id found there costs no fetch. Were the name
// to change, every request would count as a fetch: stricter, never looser.
const DOCUMENT_CACHE = 'workers-oauth-provider:cimd:v1'

/**
 * Lets a request whose client_id is a metadata document's URL reach the library only when the
 * service may fetch that URL (domain/oauth/client-documents.ts), and counts each fetch it will cause
 * per client network and per host. A document the library holds already costs nothing. Returns
 * why not, or null; past a limit, throws 429.
 */
export async function guardClientDocument<E extends AppEnv>(
  c: Context<E>,
  clientId: string | null,
) {
  if (clientId === null || !isDocumentUrl(clientId)) return null
  const svc = c.var.svc
  const problem = documentUrlProblem(svc, clientId)
  if (problem || (await cachedDocument(clientId))) return problem
  const limiter = c.env.CLIENT_DOCUMENT_LIMITER
  await limit(limiter, `ip:${clientNetworkOf(c)}`)
  await limit(limiter, `host:${new URL(clientId).hostname}`)
  return documentHostProblem(svc, clientId)
}

async function cachedDocument(url: string): Promise<boolean> {
  try {
    return (await (await caches.open(DOCUMENT_CACHE)).match(url)) !== undefined
  } catch {
    return false
  }
}

/** The library's answer to a request of its protocol (metadata, registration, tokens). */
export async function libraryAnswer<E extends AppEnv>(
  c: Context<E>,
  request: Request,
): Promise<Response> {
  const server = await authorizationServer(requireOAuthOrigin(c))
  // Hono's ExecutionContext and the library's are the same runtime object, typed apart.
  const ctx = c.executionCtx as unknown as Parameters<typeof server.fetch>[2]
  return server.fetch(request, c.env, ctx)
}

/** The library's helpers (authorization requests, grants) for this request's origin. */
export async function oauthHelpers<E extends AppEnv>(c: Context<E>) {
  return (await authorizationServer(requireOAuthOrigin(c))).getOAuthApi(c.env)
}

/** The deployment's own CLI's client id, registered with the library the first time it is asked. */
export async function cliClientId<E extends AppEnv>(c: Context<E>): Promise<string> {
  const helpers = await oauthHelpers(c)
  const register = async () => {
    const client = await helpers.createClient({
      clientName: CLI_CLIENT_NAME,
      // Any loopback port (RFC 8252 7.3): the CLI listens where it can for the browser's answer.
      redirectUris: ['http://127.0.0.1/callback'],
      tokenEndpointAuthMethod: 'none',
    })
    return client.clientId
  }
  return ownCliClient(c.var.svc, register, (id) => helpers.deleteClient(id))
}

/** What the consent page and the device page call the deployment's own CLI. */
export const CLI_CLIENT_NAME = 'svc (the Canvas command line)'

/** Removes a grant's records from the library's store, after the response (D1 has ended it). */
export function forgetGrants<E extends AppEnv>(c: Context<E>, grants: LibraryGrant[]) {
  if (grants.length === 0) return
  // Removing records is the same for every issuer over this store: a page reached over http
  // (where no issuer is served) removes them as the machine's own issuer would.
  const work = authorizationServer(oauthOrigin(c) ?? 'http://127.0.0.1').then((server) => {
    const api = server.getOAuthApi(c.env)
    return Promise.all(grants.map((g) => api.revokeGrant(g.grantId, g.subject)))
  })
  // A signed-in page's context is an AppEnv one with the session made certain.
  afterResponse(c as unknown as Context<AppEnv>, work)
}

/** The challenge a 401 of the MCP endpoint carries: where to find how to get a token. */
export function bearerChallenge(c: Context, invalid: boolean): string {
  const metadata = new URL(c.req.url).origin + RESOURCE_METADATA_PATH
  return `Bearer ${invalid ? 'error="invalid_token", ' : ''}resource_metadata="${metadata}"`
}

/**
 * The challenge of a request that needs more than its token was granted (RFC 6750 3.1, MCP's
 * step-up): a client may ask the person again, for these scopes.
 */
export function insufficientScope(c: Context, scope: string): string {
  const metadata = new URL(c.req.url).origin + RESOURCE_METADATA_PATH
  return `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${metadata}"`
}

/** An error of the token or registration endpoint, in OAuth's own form (RFC 6749 5.2). */
export function oauthError(
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
) {
  return Response.json(
    { error, error_description: description },
    { status, headers: { 'Cache-Control': 'no-store', ...headers } },
  )
}

/** What the token and registration endpoints answer for a failure of their own. */
export function oauthErrorOf(c: Context<AppEnv>, err: unknown): Response {
  if (err instanceof AppError) {
    if (err.code === 'rate_limited') {
      return oauthError(429, 'temporarily_unavailable', err.message, err.headers)
    }
    if (err.status < 500) return oauthError(err.status, 'invalid_request', err.message)
  }
  const id = requestId(c)
  logError({ request_id: id }, err)
  return oauthError(500, 'server_error', `internal error (request ${id})`)
}

/** The protocol's JSON endpoints answer every failure of their own in OAuth's form, never stored. */
export async function oauthAnswer(c: Context<AppEnv>, run: () => Promise<Response>) {
  try {
    const answer = await run()
    answer.headers.set('Cache-Control', 'no-store')
    return answer
  } catch (err) {
    return oauthErrorOf(c, err)
  }
}
