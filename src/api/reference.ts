import { Hono } from 'hono'
import { selfOrigin, type AppEnv } from '../http/context'
import type { OpenApiDocument } from '../http/openapi'
import { open } from '../http/actor/steps'
import { documented } from '../http/route-docs'
import { AppError } from '../lib/errors'

// The API described for machines: /openapi.json, built from the app's own routes and schemas,
// /llms.txt, the short version for agents, and /skill.md, the agent skill of the repository
// (skills/canvas/SKILL.md) with this deployment's address in place of the example one.
export function reference(describe: () => Promise<OpenApiDocument>) {
  const routes = new Hono<AppEnv>()

  routes.get(
    '/openapi.json',
    open,
    documented({
      summary: 'This API description',
      description: 'OpenAPI 3.1, generated from the schemas the service validates with.',
      tag: 'Agents',
      responses: { 200: { description: 'The description.', contentType: 'application/json' } },
    }),
    async (c) => c.json({ ...(await describe()), servers: [{ url: selfOrigin(c) }] }),
  )
  routes.get(
    '/llms.txt',
    open,
    documented({
      summary: 'Canvas for agents, in brief',
      description: 'How an agent publishes, updates, shares and reads back: MCP, the API, the CLI.',
      tag: 'Agents',
      responses: { 200: { description: 'Markdown.', contentType: 'text/markdown' } },
    }),
    async (c) => {
      // With the MCP tools it lists, loaded when first asked for.
      const { llmsText } = await import('./llms')
      c.header('Content-Type', 'text/markdown; charset=utf-8')
      return c.body(llmsText(await describe(), selfOrigin(c)))
    },
  )
  routes.get(
    '/skill.md',
    open,
    documented({
      summary: 'The agent skill',
      description:
        'An Agent Skill (SKILL.md: front matter, then how to publish, update, share and answer ' +
        'comments with `svc --json` and MCP), naming this deployment. Save it as ' +
        '`~/.claude/skills/canvas/SKILL.md` (or where an agent keeps its skills).',
      tag: 'Agents',
      responses: { 200: { description: 'Markdown.', contentType: 'text/markdown' } },
    }),
    async (c) => {
      const origin = selfOrigin(c)
      const res = await c.env.ASSETS.fetch(new URL(SKILL_ASSET, origin))
      if (!res.ok) throw new AppError('internal_error', 'the skill is missing from the build')
      c.header('Content-Type', 'text/markdown; charset=utf-8')
      return c.body((await res.text()).replaceAll(EXAMPLE_ORIGIN, origin))
    },
  )
  return routes
}

/** Where the build puts the skill among the static assets (scripts/build-assets.mjs). */
const SKILL_ASSET = '/skill/SKILL.md'
/** The address the skill names in the repository. */
const EXAMPLE_ORIGIN = 'https://canvas.example.com'
