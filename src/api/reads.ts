import { Hono } from 'hono'
import { canvasByIdStatement, ownedCanvasDetail } from '../domain/canvas-reads'
import { currentSiteItems } from '../domain/site-reads'
import { canvasIdParam, type AppEnv } from '../http/context'
import { authorize } from '../http/auth'
import { documented } from '../http/route-docs'
import * as shapes from '../schema/responses'

// The hottest read authenticates inside its own batch: key lookup and canvas in one D1 round trip.
// Mounted ahead of the /v1 key middleware (app.ts), which it replaces for this route.
export const reads = new Hono<AppEnv>()

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
    const [canvas, items] = await authorize(
      c,
      canvasByIdStatement(c.var.svc, id),
      currentSiteItems(c.var.svc.db, { canvasId: id }),
    )
    return c.json(ownedCanvasDetail(canvas, c.var.auth, items))
  },
)
