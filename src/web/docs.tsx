import { open } from '../http/access'
import { Hono } from 'hono'
import type { AppEnv } from '../http/context'
import type { OpenApiDocument } from '../http/openapi'
import { documented } from '../http/route-docs'
import { ApiDocs } from './pages/api-docs'

// The API reference for people, rendered here from the same description as /openapi.json: no
// script or style from another host.
export function docs(describe: () => OpenApiDocument) {
  const page = new Hono<AppEnv>()
  page.get(
    '/',
    open,
    documented({
      summary: 'This API reference, for people',
      tag: 'Agents',
      auth: 'none',
      responses: { 200: { description: 'The page.', contentType: 'text/html' } },
    }),
    (c) => c.html(<ApiDocs doc={describe()} user={c.var.session?.user} />),
  )
  return page
}
