import type { Env, MiddlewareHandler } from 'hono'
import { every } from 'hono/combine'
import { createMiddleware } from 'hono/factory'
import { AppError } from '../../lib/errors'
import type { AppEnv, SignedInEnv } from '../context'
import { IDEMPOTENCY_HEADER, idempotent } from '../idempotency'
import { bearerChallenge } from '../oauth'
import { admitted, type Access } from './admit'
import { authorize, authorizeKey, keyLimit, presentedKeyHash, READ_METHODS } from './key'
import type { Need } from './need'
import { readSession } from './session'
import { stated, statementOf, type AccessKind, type Options } from './statement'
import { authorizeAccessToken, presentedAccessToken } from './token'

// Who may call a route is the first step of the route itself, never a middleware mounted on a
// prefix elsewhere: each step below states the kind of credential it takes and what it needs of
// it (http/actor/statement.ts), and checks exactly that. The route table test (test/routes.test.ts)
// fails for a route without exactly one, or with it anywhere but first.

/** The access a step states, set on the request for the checks that come after it. */
const accessOf = (need: Need, { workspace, self }: Options): Access => ({ need, workspace, self })

/**
 * A Bearer API key that has what `need` asks, checked before the route runs; for a write with an
 * Idempotency-Key, the key's claim joins the same D1 round trip (http/idempotency).
 */
export function key(need: Need, options: Options = {}): MiddlewareHandler<AppEnv> {
  const access = accessOf(need, options)
  return stated(
    { kind: 'key', need, ...options },
    createMiddleware<AppEnv>(async (c, next) => {
      c.set('access', access)
      const idempotencyKey = c.req.header(IDEMPOTENCY_HEADER)
      if (idempotencyKey !== undefined && !READ_METHODS.has(c.req.method)) {
        const replayed = await idempotent(c, next, idempotencyKey)
        if (replayed) return replayed
      } else {
        await authorize(c)
        await next()
      }
      c.header('Cache-Control', 'no-store')
    }),
  )
}

/**
 * A Bearer API key checked by the route itself, in the D1 batch of its own statements (one round
 * trip: the hottest reads, presign). The key must be there and well formed before anything else;
 * its rate limit is asked at once, so the verdict overlaps the request's validation and reading.
 * Should anything fail before the route has authorized, the key is judged first (401, 429, 403
 * before the request's own 400). A route that answers without authorizing is a bug, and is
 * refused as one.
 */
export function keyInBatch(need: Need): MiddlewareHandler<AppEnv> {
  const access = accessOf(need, {})
  return stated({ kind: 'key', need }, batchedKey(access))
}

const batchedKey = (access: Access) =>
  createMiddleware<AppEnv>(async (c, next) => {
    c.set('access', access)
    const hash = await presentedKeyHash(c)
    const limit = keyLimit(c, hash)
    c.set('keyCheck', { hash, limit })
    await next()
    if (c.var.actor) return
    // The route ended (a thrown error is its answer by now) without judging the key: judged here,
    // its 401, 429 or 403 takes the place of the route's answer.
    await authorizeKey(c, hash, [], undefined, limit)
    if (c.res.status < 400) {
      throw new AppError('internal_error', 'the route answered without authorizing its key')
    }
  })

/**
 * The MCP endpoint's: an API key as `keyInBatch` checks it, or an OAuth access token, which is
 * judged before the route runs (http/actor/token.ts). Every 401 names where a client learns how to
 * get a token (RFC 9728), so a chat app given only the URL can connect.
 */
export function keyOrToken(need: Need): MiddlewareHandler<AppEnv> {
  const access = accessOf(need, {})
  const keyStep = batchedKey(access)
  return stated(
    { kind: 'key', need, token: true },
    createMiddleware<AppEnv>(async (c, next) => {
      c.set('access', access)
      const token = presentedAccessToken(c)
      try {
        if (token === null) {
          await keyStep(c, next)
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
}

/** A JSON route of the web app: the person's session (401 without one) with what `need` asks. */
export function session(need: Need, options: Options = {}): MiddlewareHandler<SignedInEnv> {
  const access = accessOf(need, options)
  return stated(
    { kind: 'session', need, ...options },
    createMiddleware<SignedInEnv>(async (c, next) => {
      const app = c as unknown as Parameters<typeof readSession>[0]
      c.set('access', access)
      const found = await readSession(app)
      if (!found) throw new AppError('unauthorized', 'not logged in')
      await admitted(app, c.var.actor, access)
      await next()
      c.header('Cache-Control', 'no-store')
    }),
  )
}

/**
 * A page of a signed-in person with what `need` asks. Without a session a page goes to login and
 * back again; a post goes to login only, since what it would have done cannot be replayed.
 */
export function page(need: Need, options: Options = {}): MiddlewareHandler<SignedInEnv> {
  const access = accessOf(need, options)
  return stated(
    { kind: 'page', need, ...options },
    createMiddleware<SignedInEnv>(async (c, next) => {
      const app = c as unknown as Parameters<typeof readSession>[0]
      c.set('access', access)
      if (!(await readSession(app))) {
        // The whole address comes back after login, query included: an app's authorization
        // request is all in its query (/oauth/authorize).
        const url = new URL(c.req.url)
        const back = url.pathname + url.search
        const login = c.req.method === 'GET' ? `/login?next=${encodeURIComponent(back)}` : '/login'
        return c.redirect(login)
      }
      await admitted(app, c.var.actor, access)
      await next()
    }),
  )
}

/** Anyone: the route needs no credential (health, descriptions, login and signup). */
export const open: MiddlewareHandler = stated({ kind: 'none' }, (_c, next) => next())

/** Anyone, over https or on the machine itself: the OAuth protocol's routes. */
export const openOverHttps: MiddlewareHandler = stated({ kind: 'none', https: true }, (_c, next) =>
  next(),
)

/**
 * Declares a route whose credential is checked by its handler against the access it names: a
 * share token (`share`), a signature (`signed`), a canvas that is public or the session's own
 * (`viewer`), or a session whose absence the page answers in its own way (`page`: the dashboard
 * sends a first visitor to signup).
 */
export const checkedBy = (
  kind: Exclude<AccessKind, 'none' | 'key' | 'session'>,
  options: Options & { need?: Need } = {},
): MiddlewareHandler => stated({ kind, ...options }, (_c, next) => next())

/**
 * An access step followed by steps of its own (a session's budget, its CSRF header), as one step
 * that states what the access step states.
 */
export function followedBy<E extends Env>(
  step: MiddlewareHandler<E>,
  ...more: MiddlewareHandler<E>[]
): MiddlewareHandler<E> {
  return stated(statementOf(step)!, every(step, ...more) as MiddlewareHandler<E>)
}
