import type { Context } from 'hono'
import { errorBody } from '../lib/errors'
import { requestId, type AppEnv } from '../http/context'

// A load balancer may poll /health many times a second: one D1 check per binding every few
// seconds answers for all of them, and a failure is never cached.
const HEALTH_TTL_MS = 5000
const lastHealthy = new WeakMap<D1Database, number>()
const HEADERS = { 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff' }

/**
 * GET /health, ahead of every middleware. While the last check is fresh it answers without an
 * await or a Hono helper: a bare Response is the cheapest answer the runtime can give.
 */
export function health(c: Context<AppEnv>): Response | Promise<Response> {
  if (Date.now() - (lastHealthy.get(c.env.DB) ?? 0) < HEALTH_TTL_MS) return healthy()
  return checkDatabase(c, c.env.DB)
}

async function checkDatabase(c: Context<AppEnv>, db: D1Database): Promise<Response> {
  try {
    // The binding itself, not the Drizzle handle: this runs ahead of the middleware that builds it,
    // and a bare SELECT 1 needs no query builder.
    await db.prepare('SELECT 1').first()
  } catch {
    lastHealthy.delete(db)
    const id = requestId(c)
    const body = { ok: false, ...errorBody('service_unavailable', 'database unreachable', id) }
    return new Response(JSON.stringify(body), {
      status: 503,
      headers: { ...HEADERS, 'X-Request-Id': id },
    })
  }
  lastHealthy.set(db, Date.now())
  return healthy()
}

const healthy = () => new Response('{"ok":true}', { headers: HEADERS })
