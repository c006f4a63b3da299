import { Hono } from 'hono'
import { requestOrigin, type AppEnv } from '../http/context'
import type { OpenApiDocument } from '../http/openapi'
import { documented } from '../http/route-docs'

// The API described for machines: /openapi.json, built from the app's own routes and schemas.
export function reference(describe: () => OpenApiDocument) {
  const routes = new Hono<AppEnv>()

  routes.get(
    '/openapi.json',
    documented({
      summary: 'This API description',
      description: 'OpenAPI 3.1, generated from the schemas the service validates with.',
      tag: 'Agents',
      auth: 'none',
      responses: { 200: { description: 'The description.', contentType: 'application/json' } },
    }),
    (c) => {
      c.header('Cache-Control', 'public, max-age=300')
      return c.json({ ...describe(), servers: [{ url: requestOrigin(c) }] })
    },
  )
  return routes
}
