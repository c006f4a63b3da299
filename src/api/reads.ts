import { Hono } from 'hono'
import {
  canvasByIdStatement,
  listPage,
  listStatement,
  ownedCanvasDetail,
} from '../domain/canvas-reads'
import { canvasIdParam, type AppEnv } from '../http/context'
import { authorize, authorizeKey, keyFirst, presentedKeyHash } from '../http/auth'
import { documented } from '../http/route-docs'
import { describedQuery, queryOf } from '../http/validate'
import { listQuery } from '../schema/requests'
import * as shapes from '../schema/responses'

// The hottest reads authenticate inside their own batch: the key lookup and the route's query in
// one D1 round trip. Mounted ahead of the /v1 key middleware (app.ts), which they replace. A round
// trip is the largest cost a request has here: about 1 ms of workerd's CPU (a bare Worker reading
// a row twice per request took 2.1-2.4 ms against 1.3 ms reading it once), of the 2.5-3 ms a list
// page cost with two. The page's statement takes its workspace from the key's row.
export const reads = new Hono<AppEnv>()

reads.get(
  '/v1/canvases',
  describedQuery(listQuery),
  documented({
    summary: 'List canvases',
    description:
      'Newest first; `limit` 1 to 100 (default 20). Each page answers `next_cursor` (null on ' +
      'the last); pass it as `cursor` for the next page, which costs what the first does at any ' +
      'depth (`offset` still works, slower the deeper it goes; not both).',
    tag: 'Canvases',
    auth: 'key',
    responses: { 200: { description: 'A page of canvases.', schema: shapes.canvasList } },
  }),
  async (c) => {
    const keyHash = await presentedKeyHash(c)
    const { query, statement } = await keyFirst(c, keyHash, () => {
      const { limit = 20, offset = 0, ...filters } = queryOf(c, listQuery)
      const query = { ...filters, limit, offset }
      return { query, statement: listStatement(c.var.svc, { keyHash }, query) }
    })
    const [rows] = await authorizeKey(c, keyHash, [statement])
    return c.json(listPage(rows, query))
  },
)

reads.get(
  '/v1/canvases/:id',
  documented({
    summary: 'Get a canvas',
    description:
      'With its current file and renderer, and a site’s `items` and `main`. Another ' +
      'workspace’s canvas is not found.',
    tag: 'Canvases',
    auth: 'key',
    responses: { 200: { description: 'The canvas.', schema: shapes.canvasDetail } },
    errors: ['canvas_not_found'],
  }),
  async (c) => {
    const id = canvasIdParam(c)
    const [canvas] = await authorize(c, canvasByIdStatement(c.var.svc, id))
    return c.json(ownedCanvasDetail(canvas, c.var.auth))
  },
)
