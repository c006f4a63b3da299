import { Hono } from 'hono'
import { account } from './api/account'
import { auth } from './api/auth'
import { canvases } from './api/canvases'
import type { AppEnv } from './api/context'
import { requireKey, services } from './api/middleware'
import { reads } from './api/reads'
import { publicShares } from './api/public'
import { shares } from './api/shares'
import { storage } from './api/storage'
import { upload } from './api/upload'
import { AppError, errorBody, handleError, toAppError } from './errors'
import { errorPage } from './web/errors'
import { web } from './web/routes'
import { LOCAL_STORAGE_PATH } from './storage/presign'

// JSON for the API, the public share API and storage; everything else is a web page.
const API_PREFIXES = ['/v1/', '/auth/', '/share/', LOCAL_STORAGE_PATH + '/']
const isApiPath = (path: string) =>
  path === '/health' || path === '/v1' || API_PREFIXES.some((prefix) => path.startsWith(prefix))

// A load balancer may poll /health many times a second: one D1 check per binding every few
// seconds answers for all of them, and a failure is never cached.
const HEALTH_TTL_MS = 5000
const lastHealthy = new WeakMap<D1Database, number>()

async function databaseReachable(db: D1Database): Promise<boolean> {
  if (Date.now() - (lastHealthy.get(db) ?? 0) < HEALTH_TTL_MS) return true
  try {
    await db.prepare('SELECT 1').first()
    lastHealthy.set(db, Date.now())
    return true
  } catch {
    lastHealthy.delete(db)
    return false
  }
}

export function buildApp() {
  const app = new Hono<AppEnv>()

  // Before every middleware: a load balancer's poll should cost as little as the runtime allows.
  app.get('/health', async (c) => {
    c.header('X-Content-Type-Options', 'nosniff')
    if (await databaseReachable(c.env.DB)) return c.json({ ok: true })
    return c.json({ ok: false, ...errorBody('service_unavailable', 'database unreachable') }, 503)
  })

  app.use('*', async (c, next) => {
    await next()
    c.header('X-Content-Type-Options', 'nosniff')
    c.header(
      'Referrer-Policy',
      c.res.headers.get('Referrer-Policy') ?? 'strict-origin-when-cross-origin',
    )
  })
  app.use('*', services)

  app.route('/auth', auth)
  app.route('/share', publicShares)
  app.route(LOCAL_STORAGE_PATH, storage)

  app.route('/', reads)
  app.use('/v1/*', requireKey)
  app.route('/v1/upload', upload)
  app.route('/v1/canvases/:id/shares', shares)
  app.route('/v1/canvases', canvases)
  app.route('/v1', account)

  app.route('/', web)

  app.notFound(() => {
    throw new AppError('not_found', 'no such route')
  })
  app.onError((err, c) => {
    if (isApiPath(c.req.path)) return handleError(err, c)
    const appError = toAppError(err)
    if (appError.code === 'internal_error') return handleError(err, c)
    return errorPage(c, appError)
  })
  return app
}
