import type { Context } from 'hono'
import type { Actor } from '../../domain/actor'
import { grantStatement, touchGrant } from '../../domain/oauth/grants'
import { AppError } from '../../lib/errors'
import { database } from '../../storage/db'
import { afterResponse, type AppEnv } from '../context'
import { rateLimited, withinLimit } from '../limits'
import { MCP_PATH, authorizationServer, oauthOrigin } from '../oauth'
import { admitted, needOf } from './admit'
import { grantActor } from './build'

// An OAuth access token of an app a person connected (docs/agents.md), as the authority
// (http/actor) reads it: the library says whether the token is valid for this origin's MCP
// endpoint, D1 says whether its grant still stands, and the grant's row says who acts.

const INVALID = 'invalid or expired access token'

/** The Bearer value when it has the shape of an access token (API keys have no colon). */
export function presentedAccessToken(c: Context): string | null {
  const match = /^Bearer +(\S+) *$/i.exec(c.req.header('Authorization') ?? '')
  return match && match[1].includes(':') ? match[1] : null
}

/**
 * The actor of the standing grant an access token belongs to, when the library validates the
 * token for this origin's MCP endpoint and D1 says the grant still stands (in the primary
 * database: a replica may not have seen a revocation yet); null otherwise. Its scopes are the
 * token's, which may be fewer than the grant's (a client can ask for less when refreshing).
 */
export async function grantOfAccessToken(c: Context<AppEnv>, token: string): Promise<Actor | null> {
  const origin = oauthOrigin(c)
  // The library's tokens are `<subject>:<grant>:<secret>` (the grant's subject, not the person).
  const parts = token.split(':')
  if (!origin || parts.length !== 3) return null
  const grantId = parts[1]
  const server = await authorizationServer(origin)
  const [validated, row] = await Promise.all([
    server.validateToken<{ userId: string; workspaceId: string }>(origin + MCP_PATH, token, c.env),
    grantStatement(database(c.env.DB), grantId, c.var.svc.now()).get(),
  ])
  if (validated === null) return null
  const tokenScopes = validated.scope.includes('canvas:write') ? undefined : (['read'] as const)
  const actor = grantActor(grantId, row, tokenScopes && [...tokenScopes])
  const agrees =
    actor !== null &&
    validated.props.userId === actor.userId &&
    validated.props.workspaceId === actor.workspaceId
  return agrees ? actor : null
}

/**
 * Admits a request whose access token belongs to a standing grant (grantOfAccessToken), for that
 * grant's workspace, held to the route's need. 401 otherwise; 429 past its rate limit, which an
 * access token shares with nothing else.
 */
export async function authorizeAccessToken(c: Context<AppEnv>, token: string) {
  const grantId = token.split(':')[1] ?? ''
  const [actor, allowed] = await Promise.all([
    grantOfAccessToken(c, token),
    withinLimit(c.env.API_LIMITER, `grant:${grantId}`),
  ])
  if (!actor) throw new AppError('unauthorized', INVALID)
  if (!allowed) throw rateLimited()
  await admitted(c, actor, needOf(c))
  const touch = touchGrant(c.var.svc, actor)
  if (touch) afterResponse(c, touch)
}
