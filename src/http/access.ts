import type { MiddlewareHandler } from 'hono'
import { createMiddleware } from 'hono/factory'
import { AppError } from '../lib/errors'
import {
  authorize,
  authorizeFor,
  authorizeKey,
  keyLimit,
  presentedKeyHash,
  READ_METHODS,
} from './auth'
import type { AppEnv } from './context'
import { access } from './access-kind'
import { IDEMPOTENCY_HEADER, idempotent } from './idempotency'
import { authorizeAccessToken, bearerChallenge, presentedAccessToken } from './oauth'

// Who may call a route is the first step of the route itself, never a middleware mounted on a
// prefix elsewhere: each step below carries the kind of access it grants, and the route table
// test (test/routes.test.ts) fails for a route without exactly one, or with another kind than the
// security tests expect of it.

export { access, accessOf, type AccessKind } from './access-kind'

/**
 * A Bearer API key with the scope the method needs, checked before the route runs; for a write
 * with an Idempotency-Key, the key's claim joins the same D1 round trip (http/idempotency).
 */
export const keyAccess = access(
  'key',
  createMiddleware<AppEnv>(async (c, next) => {
    const key = c.req.header(IDEMPOTENCY_HEADER)
    if (key !== undefined && !READ_METHODS.has(c.req.method)) {
      const replayed = await idempotent(c, next, key)
      if (replayed) return replayed
    } else {
      await authorize(c)
      await next()
    }
    c.header('Cache-Control', 'no-store')
  }),
)

/**
 * `keyAccess` for routes whose every method needs the `write` scope, reads too: what they show
 * (where a workspace's events go) belongs to whoever may change the workspace.
 */
export const writeKeyAccess = access(
  'key',
  createMiddleware<AppEnv>(async (c, next) => {
    if (!READ_METHODS.has(c.req.method)) return keyAccess(c, next)
    await authorizeFor(c, 'write')
    await next()
    c.header('Cache-Control', 'no-store')
  }),
)

/**
 * A Bearer API key checked by the route itself, in the D1 batch of its own statements (one round
 * trip: the hottest reads, presign, MCP). The key must be there and well formed before anything
 * else; its rate limit is asked at once, so the verdict overlaps the request's validation and
 * reading. Should anything fail before the route has authorized, the key is judged first (401,
 * 429, 403 before the request's own 400). A route that answers without authorizing is a bug, and
 * is refused as one.
 */
const batchedKey = createMiddleware<AppEnv>(async (c, next) => {
  const hash = await presentedKeyHash(c)
  const limit = keyLimit(c, hash)
  c.set('keyCheck', { hash, limit })
  await next()
  if (c.var.auth) return
  // The route ended (a thrown error is its answer by now) without judging the key: judged here,
  // its 401, 429 or 403 takes the place of the route's answer.
  await authorizeKey(c, hash, [], undefined, undefined, limit)
  if (c.res.status < 400) {
    throw new AppError('internal_error', 'the route answered without authorizing its key')
  }
})

export const keyInBatch = access('key', batchedKey)

/**
 * The MCP endpoint's: an API key as `keyInBatch` checks it, or an OAuth access token, which is
 * judged before the route runs (http/oauth.ts). Every 401 names where a client learns how to get
 * a token (RFC 9728), so a chat app given only the URL can connect.
 */
export const keyOrToken = access(
  'key',
  createMiddleware<AppEnv>(async (c, next) => {
    const token = presentedAccessToken(c)
    try {
      if (token === null) {
        await batchedKey(c, next)
      } else {
        await authorizeAccessToken(c, token)
        await next()
        c.header('Cache-Control', 'no-store')
      }
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'unauthorized') throw err
      const presented = c.req.header('Authorization') !== undefined
      throw new AppError(err.code, err.message, {
        ...err.headers,
        'WWW-Authenticate': bearerChallenge(c, presented),
      })
    }
    if (c.res.status === 401) c.res.headers.set('WWW-Authenticate', bearerChallenge(c, true))
  }),
)

/** Anyone: the route needs no credential (health, descriptions, login and signup). */
export const open: MiddlewareHandler = access('none', (_c, next) => next())

/**
 * Declares a route whose credential is checked by its handler against the access it names: a
 * share token (`share`), a signature (`signed`), a canvas that is public or the session's own
 * (`viewer`), or a session whose absence the page answers in its own way (`page`: the dashboard
 * sends a first visitor to signup).
 */
export const checkedBy = (kind: 'share' | 'signed' | 'viewer' | 'page'): MiddlewareHandler =>
  access(kind, (_c, next) => next())
