import { Hono, type Context } from 'hono'
import { health } from './api/health'
import { mountAll, type AppEnv, type Mount } from './http/context'
import { services } from './http/services'
import { AppError } from './lib/errors'
import { handleError, toAppError } from './http/errors'
import { documentedHandler } from './http/route-docs'
import { stated } from './http/actor/statement'
import { key } from './http/actor/steps'
import { READ } from './http/actor/need'
import { errorPage } from './web/errors'
import { forThePage, isWebJsonPath, webApp } from './web'
import { isSsoPage } from './web/sso-access'
import { apiDescription, type OpenApiDocument } from './http/openapi'
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

/** The routes of an app, in the order they are mounted. */
export interface Routes {
  /** JSON routes. */
  api: Mount[]
  /** JSON routes after the API's own: the reference (/openapi.json, /llms.txt). */
  reference: Mount[]
  /** Documents of user content: none of the pages' middleware applies. */
  documents: Mount[]
  /** Pages. */
  pages: Mount[]
}

/** What answers a request no route of the app matched. */
export type Fallback = (c: Context<AppEnv>) => Response | Promise<Response>

/**
 * The app around its routes: /health, the headers every answer carries, the services, the one
 * error handler. `routes` gets the app's API description (built from the app's own routes when
 * asked). Without `fallback`, a path no route matches is not found: under /v1 told apart only to
 * a valid key (401 before 404). With it, the fallback answers such a path: how the start's app
 * hands what it does not serve to the whole app (src/index.ts).
 */
export function composeApp(
  routes: (describe: () => Promise<OpenApiDocument>) => Routes,
  fallback?: Fallback,
) {
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

  const { api, reference, documents, pages } = routes(apiDescription(() => app.routes))
  // Each route checks its own access first (http/actor/steps.ts), so the order of the mounts
  // decides nothing.
  mountAll(app, api)
  if (!fallback) {
    app.all('/v1/*', key(READ), () => {
      throw new AppError('not_found', 'no such route')
    })
  }
  mountAll(app, reference)
  app.route('/', webApp(documents, pages))

  app.notFound(
    fallback ??
      (() => {
        throw new AppError('not_found', 'no such route')
      }),
  )
  app.onError((err, c) => {
    if (isWebJsonPath(c.req.path)) return handleError(forThePage(err), c)
    if (isApiPath(c.req.path)) return handleError(err, c)
    const appError = toAppError(err)
    if (appError.code === 'internal_error') return handleError(err, c)
    return errorPage(c, appError)
  })
  return app
}
