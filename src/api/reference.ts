import { Hono } from 'hono'
import { selfOrigin, type AppEnv } from '../http/context'
import type { OpenApiDocument } from '../http/openapi'
import { open } from '../http/access'
import { documented } from '../http/route-docs'
import { llmsText } from './llms'

// The API described for machines: /openapi.json, built from the app's own routes and schemas, and
// /llms.txt, the short version for agents.
export function reference(describe: () => OpenApiDocument) {
  const routes = new Hono<AppEnv>()

  routes.get(
    '/openapi.json',
    open,
    documented({
      summary: 'This API description',
      description: 'OpenAPI 3.1, generated from the schemas the service validates with.',
      tag: 'Agents',
      auth: 'none',
      responses: { 200: { description: 'The description.', contentType: 'application/json' } },
    }),
    (c) => c.json({ ...describe(), servers: [{ url: selfOrigin(c) }] }),
  )
  routes.get(
    '/llms.txt',
    open,
    documented({
      summary: 'Canvas for agents, in brief',
      description: 'How an agent publishes, updates, shares and reads back: MCP, the API, the CLI.',
      tag: 'Agents',
      auth: 'none',
      responses: { 200: { description: 'Markdown.', contentType: 'text/markdown' } },
    }),
    (c) => {
      c.header('Content-Type', 'text/markdown; charset=utf-8')
      return c.body(llmsText(describe(), selfOrigin(c)))
    },
  )
  return routes
}
