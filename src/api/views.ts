import { Hono } from 'hono'
import * as z from 'zod/mini'
import { canvasReadership } from '../domain/views/views'
import type { AppEnv } from '../http/context'
import { key } from '../http/actor/steps'
import { READ } from '../http/actor/need'
import { canvasInPath, pattern } from '../schema/requests'
import { params, query } from '../http/validate'
import { documented } from '../http/route-docs'

// Who read a canvas (docs/readership.md): /v1/canvases/:id/views.
export const views = new Hono<AppEnv>()

const MAX_DAYS = 90
const days = z.pipe(
  pattern(/^\d{1,2}$/, `must be a whole number of days from 1 to ${MAX_DAYS}`),
  z.pipe(
    z.transform(Number),
    z
      .number()
      .check(
        z.refine(
          (n) => n >= 1 && n <= MAX_DAYS,
          `must be a whole number of days from 1 to ${MAX_DAYS}`,
        ),
      ),
  ),
)
const viewsQuery = z.object({ days: z.optional(days) })

views.get(
  '/',
  key(READ),
  params(canvasInPath),
  query(viewsQuery),
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
