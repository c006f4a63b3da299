import { createMiddleware } from 'hono/factory'
import { authorize, READ_METHODS } from './auth'
import type { AppEnv } from './context'
import { IDEMPOTENCY_HEADER, idempotent } from './idempotency'

/**
 * Bearer auth on every /v1 route that does not authenticate inside its own batch; for a write
 * with an Idempotency-Key, the key's claim joins the same batch. Mounted on all of /v1, so no
 * write route can be added without the header's guarantee.
 */
export const requireKey = createMiddleware<AppEnv>(async (c, next) => {
  const key = c.req.header(IDEMPOTENCY_HEADER)
  if (key !== undefined && !READ_METHODS.has(c.req.method)) {
    const replayed = await idempotent(c, next, key)
    if (replayed) return replayed
  } else {
    await authorize(c)
    await next()
  }
  c.header('Cache-Control', 'no-store')
})
