import type { Context } from 'hono'
import type { BatchItem, BatchResponse } from 'drizzle-orm/batch'
import { getCookie, setCookie } from 'hono/cookie'
import { createMiddleware } from 'hono/factory'
import { AppError } from '../lib/errors'
import { keyFromRow, keyHashOf, keyStatement, touchKey, type KeyAuth } from '../domain/keys'
import type { Scope } from '../schema/requests'
import { resolveSession } from '../domain/users'
import { afterResponse, requestOrigin, type AppEnv, type SignedInEnv } from './context'
import { rateLimited, withinLimit } from './limits'
import { access } from './access-kind'

export const SESSION_COOKIE = 'canvas_session'
export const READ_METHODS = new Set(['GET', 'HEAD'])

/**
 * Authenticates the request's Bearer key (401 for missing, malformed, unknown or revoked keys;
 * 403 without the scope the method needs), batched with the route's own statements so that a read
 * can cost a single D1 round trip. Returns those statements' results. The statements run before
 * the rate limit's verdict is known, so they must only read.
 */
export async function authorize<T extends BatchItem<'sqlite'>[]>(
  c: Context<AppEnv>,
  ...statements: T
): Promise<BatchResponse<T>> {
  return authorizeKey(c, await requestKeyHash(c), statements)
}

/** As `authorize`, for a route whose method does not say what it does (MCP: every call is a POST). */
export async function authorizeFor<T extends BatchItem<'sqlite'>[]>(
  c: Context<AppEnv>,
  needed: Scope,
  ...statements: T
): Promise<BatchResponse<T>> {
  return authorizeKey(c, await requestKeyHash(c), statements, undefined, needed)
}

/** The presented key's hash: taken once per request, by the route's access step when it did. */
export async function requestKeyHash(c: Context<AppEnv>): Promise<string> {
  return c.var.keyCheck?.hash ?? presentedKeyHash(c)
}

/**
 * The request's key's rate-limit verdict: the one its route's access step asked (a request
 * counts once), else asked now. Every key judged in a request is the one it presented.
 */
function limitOf(c: Context<AppEnv>, hash: string): Promise<boolean> {
  return c.var.keyCheck?.limit ?? keyLimit(c, hash)
}

/** The stored hash of the request's Bearer key; 401 when there is none or it cannot be a key. */
export async function presentedKeyHash(c: Context<AppEnv>): Promise<string> {
  const header = c.req.header('Authorization')
  if (!header)
    throw new AppError('unauthorized', 'missing API key: send Authorization: Bearer <key>')
  const match = /^Bearer +(\S+) *$/i.exec(header)
  if (!match)
    throw new AppError('unauthorized', 'malformed Authorization header: expected Bearer <key>')
  const hash = await keyHashOf(match[1])
  if (!hash) throw new AppError('unauthorized', 'invalid or revoked API key')
  return hash
}

/**
 * `authorize` for the key `hash`. A statement that writes must itself require what the key is
 * judged on afterwards; `refused` runs before a refusal is thrown, with the statements' results
 * and the key when it was found, to undo what such a write did.
 *
 * The per-key rate limit is asked at the same time as D1 (keyed by the key's hash, known before
 * the lookup): measured in workerd, awaiting it after the lookup cost a fifth of a read's req/s.
 */
export async function authorizeKey<T extends BatchItem<'sqlite'>[]>(
  c: Context<AppEnv>,
  hash: string,
  statements: T,
  refused?: (results: BatchResponse<T>, auth: KeyAuth | null) => Promise<unknown>,
  needed: Scope = READ_METHODS.has(c.req.method) ? 'read' : 'write',
  limit: Promise<boolean> = limitOf(c, hash),
): Promise<BatchResponse<T>> {
  const svc = c.var.svc
  const [[key, ...results], allowed] = await Promise.all([
    svc.db.batch([keyStatement(svc, hash), ...statements]),
    limit,
  ])
  const auth = keyFromRow(key[0])
  if (!auth || !allowed || !auth.scopes.includes(needed)) {
    await refused?.(results, auth)
  }
  return admit(c, auth, allowed, needed, results)
}

/**
 * As `authorizeKey`, for statements that write and can undo nothing: the rate limit is asked
 * first, and they run only when it allows the request. Each must itself require a live key with
 * the `write` scope and take its workspace from the key, so a refused key writes nothing.
 */
export async function authorizeWrite<T extends BatchItem<'sqlite'>[]>(
  c: Context<AppEnv>,
  hash: string,
  statements: T,
  limit: Promise<boolean> = limitOf(c, hash),
): Promise<BatchResponse<T>> {
  const svc = c.var.svc
  const allowed = await limit
  // Refused by the limit, the key is still looked up: an unknown key is 401 before it is 429.
  const [key, ...results] = await svc.db.batch([
    keyStatement(svc, hash),
    ...(allowed ? statements : []),
  ])
  return admit(c, keyFromRow(key[0]), allowed, 'write', results as BatchResponse<T>)
}

/**
 * The per-key rate limit's verdict for the key `hash`, asked now. A write route asks it before
 * reading its body, so that waiting on the limiter overlaps the reading, as a read's overlaps its
 * D1 lookup (measured in BENCHMARKS.md). Pass it on to be awaited.
 */
export function keyLimit(c: Context<AppEnv>, hash: string): Promise<boolean> {
  const verdict = withinLimit(c.env.API_LIMITER, `key:${hash}`)
  // Awaited by whoever it is passed to; until then a failure must not go unhandled.
  verdict.catch(() => {})
  return verdict
}

/** The key's verdict: 401, then 429, then 403; an admitted request carries its key from here. */
function admit<R>(
  c: Context<AppEnv>,
  auth: KeyAuth | null,
  allowed: boolean,
  needed: Scope,
  results: R,
): R {
  if (!auth) throw new AppError('unauthorized', 'invalid or revoked API key')
  if (!allowed) throw rateLimited()
  if (!auth.scopes.includes(needed)) {
    throw new AppError('forbidden', `this API key lacks the '${needed}' scope`)
  }
  c.set('auth', auth)
  const touch = touchKey(c.var.svc, auth)
  if (touch) afterResponse(c, touch)
  c.header('Cache-Control', 'no-store')
  return results
}

export const requireSession = access(
  'session',
  createMiddleware<SignedInEnv>(async (c, next) => {
    const token = getCookie(c, SESSION_COOKIE)
    const session = token ? await resolveSession(c.var.svc, token) : null
    if (!session) throw new AppError('unauthorized', 'not logged in')
    c.set('session', session)
    await next()
    c.header('Cache-Control', 'no-store')
  }),
)

/**
 * Cookie-authenticated writes must come from our own pages. Browsers send Origin on every POST
 * and DELETE, and Sec-Fetch-Site where they support it; either one naming another site is refused.
 */
export const sameOrigin = createMiddleware<AppEnv>(async (c, next) => {
  if (!READ_METHODS.has(c.req.method)) {
    const origin = c.req.header('Origin')
    const site = c.req.header('Sec-Fetch-Site')
    const crossOrigin = origin !== undefined && origin !== requestOrigin(c)
    const crossSite = site !== undefined && site !== 'same-origin' && site !== 'none'
    if (crossOrigin || crossSite) throw new AppError('forbidden', 'cross-origin request refused')
  }
  await next()
})

/** The session cookie: HttpOnly, SameSite=Lax, Secure over https (docs/api.md). */
export function startSession(c: Context, token: string, expiresAt: number) {
  setCookie(c, SESSION_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'Lax',
    secure: isHttps(c),
    expires: new Date(expiresAt),
  })
}

export const isHttps = (c: Context) => new URL(c.req.url).protocol === 'https:'
