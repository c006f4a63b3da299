import { Hono } from 'hono'
import * as z from 'zod/mini'
import { canvasReadership, workspaceReadership } from '../domain/views/views'
import type { AppEnv } from '../http/context'
import { key } from '../http/actor/steps'
import { READ } from '../http/actor/need'
import { boundedInQuery, canvasInPath } from '../schema/requests'
import { MAX_VIEW_DAYS } from '../lib/views'
import { params, query } from '../http/validate'
import { workspaceInPath } from '../schema/workspace-requests'
import { documented } from '../http/route-docs'

// Who read a canvas (docs/readership.md): /v1/canvases/:id/views.
export const views = new Hono<AppEnv>()

/** The period asked for, in days; each route has its default. */
const daysQuery = z.object({ days: z.optional(boundedInQuery(MAX_VIEW_DAYS, 'days')) })

views.get(
  '/',
  key(READ),
  params(canvasInPath),
  query(daysQuery),
  documented({
    summary: 'Who read a canvas',
    description:
      'People’s reads of the last `days` days (default 30, at most 90): by day with distinct ' +
      'readers, by version, by share link, and each member’s last read. A read shows here ' +
      'within a minute; reads by API keys and apps are not counted.',
    tag: 'Readership',
    responses: { 200: { description: 'The counts.', schema: 'readership' } },
    errors: ['canvas_not_found'],
  }),
  async (c) => {
    const { id } = c.req.valid('param')
    const period = c.req.valid('query').days ?? 30
    return c.json(await canvasReadership(c.var.svc, c.var.actor, id, period))
  },
)

// A workspace's most read canvases: /v1/workspaces/:workspace_id/views.
export const workspaceViews = new Hono<AppEnv>()

workspaceViews.get(
  '/',
  key(READ, { workspace: 'path' }),
  params(workspaceInPath),
  query(daysQuery),
  documented({
    summary: 'A workspace’s most read canvases',
    description:
      'Its canvases most read by people over the last `days` days (default 7, at most 90), most ' +
      'views first, at most 100, each with its distinct readers of each day added up. Any member.',
    tag: 'Readership',
    responses: { 200: { description: 'The canvases.', schema: 'workspaceReadership' } },
    errors: ['not_found'],
  }),
  async (c) => {
    const period = c.req.valid('query').days ?? 7
    return c.json(await workspaceReadership(c.var.svc, c.var.actor, period))
  },
)
