import type { Context } from 'hono'
import type { BatchItem, BatchResponse } from 'drizzle-orm/batch'
import type { Actor } from '../../domain/actor'
import { keyHashOf, keyStatement, touchKey, whyKeyEnded } from '../../domain/keys'
import { AppError } from '../../lib/errors'
import { afterResponse, type AppEnv } from '../context'
import { rateLimited, withinLimit } from '../limits'
import { keyActor } from './build'
import { admitted, needOf } from './admit'

// A Bearer API key, as the authority (http/actor) reads it: looked up in the D1 batch of the
// route's own statements, so that a read costs one round trip, and judged on what the route's
// access step said it needs.

export const READ_METHODS = new Set(['GET', 'HEAD'])

/**
 * Authenticates the request's Bearer key against its route's need (401 for missing, malformed,
 * unknown or revoked keys; 403 without the role or the scope), batched with the route's own
 * statements. Returns those statements' results. The statements run before the rate limit's
 * verdict is known, so they must only read.
 */
export async function authorize<T extends BatchItem<'sqlite'>[]>(
  c: Context<AppEnv>,
  ...statements: T
): Promise<BatchResponse<T>> {
  return authorizeKey(c, await requestKeyHash(c), statements)
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
 * and the actor when the key was found, to undo what such a write did.
 *
 * The per-key rate limit is asked at the same time as D1 (keyed by the key's hash, known before
 * the lookup): measured in workerd, awaiting it after the lookup cost a fifth of a read's req/s.
 */
export async function authorizeKey<T extends BatchItem<'sqlite'>[]>(
  c: Context<AppEnv>,
  hash: string,
  statements: T,
  refused?: (results: BatchResponse<T>, actor: Actor | null) => Promise<unknown>,
  limit: Promise<boolean> = limitOf(c, hash),
): Promise<BatchResponse<T>> {
  const { actor, results } = await authenticateKey(c, hash, statements, refused, limit)
  await holdToNeed(c, actor, () => refused?.(results, actor))
  return results
}

/**
 * `authorizeKey` up to the key itself (401, 429): the route's need is held against it afterwards,
 * by `holdToNeed`. For a repeat under an Idempotency-Key, answered from its first answer by any
 * key that may still be used, wherever that request acted (a workspace since deleted).
 */
export async function authenticateKey<T extends BatchItem<'sqlite'>[]>(
  c: Context<AppEnv>,
  hash: string,
  statements: T,
  refused?: (results: BatchResponse<T>, actor: Actor | null) => Promise<unknown>,
  limit: Promise<boolean> = limitOf(c, hash),
) {
  const svc = c.var.svc
  const [[row, ...results], allowed] = await Promise.all([
    svc.db.batch([keyStatement(svc, hash), ...statements]),
    limit,
  ])
  const actor = keyActor(row[0])
  try {
    if (!actor) throw await keyRefusal(c, hash)
    if (!allowed) throw rateLimited()
  } catch (err) {
    await refused?.(results, actor)
    throw err
  }
  return { actor, results }
}

/**
 * As `authorizeKey`, for statements that write and can undo nothing: the rate limit is asked
 * first, and they run only when it allows the request. Each must itself require a live key with
 * the `write` scope and a role that writes, and take its workspace from the key, so a refused key
 * writes nothing.
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
  const [row, ...results] = await svc.db.batch([
    keyStatement(svc, hash),
    ...(allowed ? statements : []),
  ])
  const actor = keyActor(row[0])
  if (!actor) throw await keyRefusal(c, hash)
  if (!allowed) throw rateLimited()
  await holdToNeed(c, actor)
  return results as BatchResponse<T>
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

/**
 * The route's need, held against a key found and within its limit (http/actor/admit.ts); an
 * admitted request carries its actor from here.
 */
export async function holdToNeed(
  c: Context<AppEnv>,
  actor: Actor,
  refused?: () => Promise<unknown> | undefined,
) {
  try {
    await admitted(c, actor, needOf(c))
  } catch (err) {
    await refused?.()
    throw err
  }
  const touch = touchKey(c.var.svc, c.var.actor)
  if (touch) afterResponse(c, touch)
  c.header('Cache-Control', 'no-store')
}

/** Why a key that was presented opens nothing, in words its holder can act on. */
async function keyRefusal(c: Context<AppEnv>, hash: string) {
  const ended = await whyKeyEnded(c.var.svc, hash)
  if (ended?.removed) {
    return new AppError(
      'unauthorized',
      `you are no longer a member of “${ended.workspace}”, so this key no longer works: ` +
        'sign in again (svc login) to use another workspace',
    )
  }
  return new AppError('unauthorized', 'invalid or revoked API key')
}
