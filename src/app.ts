import { Hono } from 'hono'
import { account } from './api/account'
import { mcp } from './api/mcp'
import { oauthApi } from './api/oauth'
import { oauthCli } from './api/oauth-cli'
import { auth } from './api/auth'
import { health } from './api/health'
import { canvases } from './api/canvases'
import type { AppEnv } from './http/context'
import { services } from './http/services'
import { publicShares } from './api/public'
import { shares } from './api/shares'
import { comments } from './api/comments'
import { storage } from './api/storage'
import { upload } from './api/upload'
import { webhooks } from './api/webhooks'
import { workspacesApi } from './api/workspaces'
import { audit } from './api/audit'
import { search } from './api/search'
import { AppError } from './lib/errors'
import { handleError, toAppError } from './http/errors'
import { documentedHandler } from './http/route-docs'
import { stated } from './http/actor/statement'
import { key } from './http/actor/steps'
import { READ } from './http/actor/need'
import { errorPage } from './web/errors'
import { forThePage, isWebJsonPath, webApp } from './web'
import { isSsoPage } from './web/sso'
import { apiDescription } from './http/openapi'
import { reference } from './api/reference'
import { LOCAL_STORAGE_PATH } from './storage/presign'
import { OAUTH_API_PATHS } from './http/oauth'

// JSON for the API, the public share API, storage and the web app's script; everything else is a
// web page.
const API_PREFIXES = ['/v1/', '/auth/', '/share/', '/.well-known/', LOCAL_STORAGE_PATH + '/']
const API_PATHS = new Set([
  '/health',
  '/v1',
  '/openapi.json',
  '/llms.txt',
  '/skill.md',
  '/mcp',
  ...OAUTH_API_PATHS,
])
const isApiPath = (path: string) =>
  !isSsoPage(path) &&
  (API_PATHS.has(path) ||
    isWebJsonPath(path) ||
    API_PREFIXES.some((prefix) => path.startsWith(prefix)))

/** Whether the route of `path` (a request's, or a route's pattern) answers JSON, errors too. */
export const answersJson = (path: string) => isWebJsonPath(path) || isApiPath(path)

export function buildApp() {
  const app = new Hono<AppEnv>()

  // Before every middleware: a load balancer's poll should cost as little as the runtime allows.
  app.get(
    '/health',
    // Anyone may ask (access: none), on the route's only function.
    stated(
      { kind: 'none' },
      documentedHandler(
        {
          summary: 'Health',
          description: 'Whether the service and its database answer. No key needed.',
          tag: 'Service',
          responses: {
            200: { description: 'Healthy.', schema: 'health' },
            503: { description: 'The database does not answer.', schema: 'unhealthy' },
          },
        },
        health,
      ),
    ),
  )

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

  // One sub-app per resource; each route checks its own access first (http/actor/steps.ts), so the
  // order of these lines decides nothing.
  app.route('/v1/upload', upload)
  app.route('/v1/canvases/:id/shares', shares)
  app.route('/v1/canvases/:id/comments', comments)
  app.route('/v1/canvases', canvases)
  app.route('/v1/webhooks', webhooks)
  app.route('/v1/workspaces', workspacesApi)
  app.route('/v1/audit', audit)
  app.route('/v1/search', search)
  app.route('/v1', account)
  app.route('/mcp', mcp)
  app.route('/', oauthApi)
  app.route('/', oauthCli)
  // Under /v1 a route that does not exist is told apart only to a valid key (401 before 404).
  app.all('/v1/*', key(READ), () => {
    throw new AppError('not_found', 'no such route')
  })

  const describe = apiDescription(() => app.routes)
  app.route('/', reference(describe))
  app.route('/', webApp(describe))

  app.notFound(() => {
    throw new AppError('not_found', 'no such route')
  })
  app.onError((err, c) => {
    if (isWebJsonPath(c.req.path)) return handleError(forThePage(err), c)
    if (isApiPath(c.req.path)) return handleError(err, c)
    const appError = toAppError(err)
    if (appError.code === 'internal_error') return handleError(err, c)
    return errorPage(c, appError)
  })
  return app
}
