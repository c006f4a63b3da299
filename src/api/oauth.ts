import { Hono, type Context } from 'hono'
import { OAUTH_SCOPES, endGrant } from '../domain/oauth/grants'
import { keyOfSecret, revokeKey } from '../domain/keys'
import { keyActor } from '../http/actor/build'
import { claimSecret, grantOfSecret, recordTokens, releaseSecret } from '../domain/oauth/secrets'
import { openOverHttps } from '../http/actor/steps'
import type { AppEnv } from '../http/context'
import { clientNetworkOf, limit } from '../http/limits'
import { CLI_GRANTS, DEVICE_CODE_GRANT, TOKEN_EXCHANGE_GRANT } from './oauth-cli'
import {
  DEVICE_AUTHORIZATION_PATH,
  MCP_PATH,
  REGISTER_PATH,
  RESOURCE_METADATA_PATH,
  SERVER_METADATA_PATH,
  TOKEN_PATH,
  cliClientId,
  forgetGrants,
  guardClientDocument,
  libraryAnswer,
  oauthAnswer,
  oauthError,
  oauthHelpers,
  requireOAuthOrigin,
} from '../http/oauth'
import { documented } from '../http/route-docs'
import { readBytes } from '../http/validate'
import { sha256Hex } from '../lib/crypto'
import { appNameProblem } from '../lib/names'

// The OAuth protocol's own routes (docs/agents.md): discovery (RFC 9728, RFC 8414),
// dynamic client registration (RFC 7591) and the token endpoint, which also revokes (RFC 7009).
// The library answers registration, metadata and tokens; the token endpoint first claims each
// one-time secret in D1, where a second use is seen at once and ends its grant.

export const oauthApi = new Hono<AppEnv>()

// Built from the origin the request reached: no shared cache may keep one host's for another.
const DISCOVERY_HEADERS = {
  'Cache-Control': 'private, max-age=300',
  Vary: 'Host',
  'Access-Control-Allow-Origin': '*',
}
// A registration or token request is small; anything larger is not one.
const MAX_BODY_BYTES = 16 * 1024

/** The CORS preflight of a discovery or protocol route: browser-based clients may call them. */
const preflight = (c: Context) =>
  c.body(null, 204, {
    'Access-Control-Allow-Origin': c.req.header('Origin') ?? '*',
    'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
    'Access-Control-Allow-Headers': 'Authorization, Content-Type, MCP-Protocol-Version',
    'Access-Control-Max-Age': '86400',
    Vary: 'Origin',
  })

for (const path of [RESOURCE_METADATA_PATH, RESOURCE_METADATA_PATH + MCP_PATH]) {
  oauthApi.get(
    path,
    openOverHttps,
    documented({
      summary: `Protected resource metadata${path.endsWith(MCP_PATH) ? ' (of /mcp)' : ''}`,
      description:
        'RFC 9728: the MCP endpoint as an OAuth protected resource, and this server as its ' +
        'authorization server. A 401 of `POST /mcp` points here.',
      tag: 'OAuth',
      responses: { 200: { description: 'The metadata.', schema: 'resourceMetadata' } },
    }),
    (c) => {
      const origin = new URL(c.req.url).origin
      return c.json(
        {
          resource: origin + MCP_PATH,
          authorization_servers: [origin],
          scopes_supported: [...OAUTH_SCOPES],
          bearer_methods_supported: ['header'],
          resource_name: 'Canvas',
          resource_documentation: `${origin}/llms.txt`,
        },
        200,
        DISCOVERY_HEADERS,
      )
    },
  )
  oauthApi.options(path, openOverHttps, preflight)
}

oauthApi.get(
  SERVER_METADATA_PATH,
  openOverHttps,
  documented({
    summary: 'Authorization server metadata',
    description:
      'RFC 8414: where to authorize, exchange codes and register, and what this server supports ' +
      '(authorization code with PKCE S256, refresh tokens, client ID metadata documents), and ' +
      '`cli_client_id`, the client id of the deployment’s own CLI.',
    tag: 'OAuth',
    responses: { 200: { description: 'The metadata.', schema: 'serverMetadata' } },
  }),
  async (c) => {
    const answer = await libraryAnswer(c, c.req.raw)
    if (!answer.ok) return answer
    // The CLI's grants beside the library's own (api/oauth-cli.ts).
    const metadata = (await answer.json()) as { grant_types_supported?: string[] }
    const origin = requireOAuthOrigin(c)
    return c.json(
      {
        ...metadata,
        device_authorization_endpoint: origin + DEVICE_AUTHORIZATION_PATH,
        // The one client whose sign-ins become API keys (api/oauth-cli.ts): `svc login` uses it.
        cli_client_id: await cliClientId(c),
        grant_types_supported: [
          ...(metadata.grant_types_supported ?? []),
          DEVICE_CODE_GRANT,
          TOKEN_EXCHANGE_GRANT,
        ],
      },
      200,
      DISCOVERY_HEADERS,
    )
  },
)
oauthApi.options(SERVER_METADATA_PATH, openOverHttps, preflight)

oauthApi.post(
  REGISTER_PATH,
  openOverHttps,
  documented({
    summary: 'Register a client',
    description:
      'RFC 7591 dynamic client registration. Redirect URIs must be https, or http on a loopback ' +
      'host (any port); each authorization request must name one of them exactly.',
    tag: 'OAuth',
    responses: { 201: { description: 'Registered.', schema: 'registeredClient' } },
    oauthErrors: {
      400: '`invalid_client_metadata`, `invalid_redirect_uri`, `invalid_request`',
      429: '`temporarily_unavailable`: too many registrations from this address',
    },
  }),
  (c) =>
    oauthAnswer(c, async () => {
      await limit(c.env.AUTH_LIMITER, `ip:${clientNetworkOf(c)}`)
      const body = await readBytes(c, MAX_BODY_BYTES, 'the registration')
      const problem = registeredNameProblem(body)
      if (problem) return oauthError(400, 'invalid_client_metadata', `client_name: ${problem}`)
      return libraryAnswer(c, forwarded(c, body))
    }),
)
oauthApi.options(REGISTER_PATH, openOverHttps, preflight)

oauthApi.post(
  TOKEN_PATH,
  openOverHttps,
  documented({
    summary: 'Token endpoint',
    description:
      'Exchanges an authorization code (with its PKCE `code_verifier`) or a refresh token for ' +
      'an access token (valid 1 h) and a new refresh token; each code and refresh token works ' +
      'once, and one used again revokes its whole grant. With `token` instead of `grant_type` it ' +
      'revokes (RFC 7009): any token of a grant ends the grant. Form-encoded.',
    tag: 'OAuth',
    responses: { 200: { description: 'The tokens.', schema: 'tokens' } },
    oauthErrors: {
      400: '`invalid_grant`, `invalid_request`, `unsupported_grant_type`, `invalid_scope`',
      401: '`invalid_client`',
      429: '`temporarily_unavailable`: too many requests from this address',
    },
  }),
  (c) =>
    oauthAnswer(c, async () => {
      await limit(c.env.PUBLIC_LIMITER, `ip:${clientNetworkOf(c)}`)
      requireOAuthOrigin(c)
      const body = await readBytes(c, MAX_BODY_BYTES, 'the token request')
      const form = new URLSearchParams(new TextDecoder().decode(body))
      // The library fetches a client's metadata document when the client_id is its URL.
      const library = async () => {
        const refused = await guardClientDocument(c, clientIdOf(c, form))
        if (refused) return oauthError(401, 'invalid_client', refused)
        return libraryAnswer(c, forwarded(c, body))
      }
      const grantType = form.get('grant_type')
      const token = form.get('token')
      if (grantType === null && token !== null) return revoke(c, token, library)
      // The CLI's own grants (api/oauth-cli.ts), which the library does not know.
      const cliGrant = grantType && CLI_GRANTS[grantType]
      if (cliGrant) return cliGrant(c, form)
      const kind =
        grantType === 'authorization_code'
          ? 'code'
          : grantType === 'refresh_token'
            ? 'refresh'
            : null
      const secret = kind && form.get(kind === 'code' ? 'code' : 'refresh_token')
      if (!kind || !secret) return library()
      return exchange(c, kind, await sha256Hex(secret), library)
    }),
)
oauthApi.options(TOKEN_PATH, openOverHttps, preflight)

/**
 * A code or refresh token for tokens: claimed in D1 first (a second use ends the grant), then
 * honoured by the library; given back if the library refuses it, so the client may try again.
 */
async function exchange(
  c: Context<AppEnv>,
  kind: 'code' | 'refresh',
  secretHash: string,
  library: () => Promise<Response>,
) {
  const svc = c.var.svc
  const what = kind === 'code' ? 'authorization code' : 'refresh token'
  const claim = await claimSecret(svc, secretHash, kind)
  if (claim.outcome === 'reused') {
    forgetGrants(c, [claim])
    return oauthError(400, 'invalid_grant', `this ${what} was used already: its grant is revoked`)
  }
  if (claim.outcome === 'unknown') {
    return oauthError(400, 'invalid_grant', `invalid, expired or revoked ${what}`)
  }
  let answer: Response
  try {
    answer = await library()
  } catch (err) {
    await releaseSecret(svc, secretHash)
    throw err
  }
  if (answer.status !== 200) {
    await releaseSecret(svc, secretHash)
    return answer
  }
  const tokens = (await answer.clone().json()) as { refresh_token?: string }
  const refresh = tokens.refresh_token ? await sha256Hex(tokens.refresh_token) : null
  try {
    await recordTokens(svc, claim.grantId, refresh)
  } catch (err) {
    // The app never sees these tokens. The library still takes the refresh token it sent (as the
    // grant's previous one): given back, a retry gets tokens again instead of ending the grant.
    await releaseSecret(svc, secretHash)
    throw err
  }
  return answer
}

/**
 * RFC 7009. Whoever holds a token of a grant may end it: a refresh token, or an access token,
 * ends its whole grant, in D1 at once, and in the library's store; an API key, itself.
 */
async function revoke(c: Context<AppEnv>, token: string, library: () => Promise<Response>) {
  const svc = c.var.svc
  // An API key the CLI got by signing in (api/oauth-cli.ts) ends the same way: `svc logout`.
  if (token.startsWith('svc_')) {
    // Whoever holds the key ends it, recorded as the key's own doing.
    const holder = keyActor((await keyOfSecret(svc, token)) ?? undefined)
    if (holder) await revokeKey(svc, holder, holder.by.keyId!)
    return new Response(null, { status: 200 })
  }
  let grant = await grantOfSecret(svc, await sha256Hex(token))
  if (!grant) {
    const unwrapped = await (await oauthHelpers(c)).unwrapToken(token)
    // The library's `userId` is the grant's subject (domain/oauth/grants.ts).
    if (unwrapped) grant = { grantId: unwrapped.grantId, subject: unwrapped.userId }
  }
  const answer = await library()
  if (answer.status === 200 && grant) {
    await endGrant(svc, grant.grantId, 'revoked')
    forgetGrants(c, [grant])
  }
  return answer
}

/**
 * What is wrong with the name a registration gives its app, shown on the consent page and in
 * Settings (lib/names.ts); null when it has none or a good one. A body that is not JSON is the
 * library's to refuse.
 */
function registeredNameProblem(body: Uint8Array): string | null {
  let metadata: unknown
  try {
    metadata = JSON.parse(new TextDecoder().decode(body))
  } catch {
    return null
  }
  const name = (metadata as { client_name?: unknown } | null)?.client_name
  return typeof name === 'string' ? appNameProblem(name) : null
}

/** The client a token request names: in its form, or as the user of its Basic credentials. */
function clientIdOf(c: Context, form: URLSearchParams): string | null {
  const basic = /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(c.req.header('Authorization') ?? '')
  if (!basic) return form.get('client_id')
  try {
    const [user] = atob(basic[1]).split(':')
    return decodeURIComponent(user)
  } catch {
    // Malformed: the library refuses it without fetching anything.
    return form.get('client_id')
  }
}

/** The same request for the library, with the body read here (it was read once, and checked). */
const forwarded = (c: Context, body: Uint8Array) =>
  new Request(c.req.url, { method: 'POST', headers: c.req.raw.headers, body })
