import { RegExpRouter } from 'hono/router/reg-exp-router'
import { canvases } from './api/canvases'
import { comments } from './api/comments'
import { shares } from './api/shares'
import { publicShares } from './api/public'
import { upload } from './api/upload'
import type { Mount } from './http/context'
import { composeApp, type Fallback } from './shell'
import { canvas } from './web/canvas/canvas'
import { favicon } from './web/favicon'
import { frames } from './web/frames/frames'
import { FRAME_PATH, LIVE_PATH } from './web/frames/links'
import { live } from './web/frames/live'
import { share } from './web/share/share'

// What the Worker evaluates at its start: the routes of the requests most of its answers are
// (reading and publishing canvases, share links, their pages and frames), and nothing of the rest,
// which loads with the whole app on the first request for it (src/index.ts). The whole app mounts
// these first, in this order, so a request either app has a route for is answered alike.

export const HOT_API: Mount[] = [
  ['/v1/upload', upload],
  ['/v1/canvases/:id/shares', shares],
  ['/v1/canvases/:id/comments', comments],
  ['/v1/canvases', canvases],
  ['/share', publicShares],
]
export const HOT_DOCUMENTS: Mount[] = [
  [FRAME_PATH, frames],
  [LIVE_PATH, live],
  ['/', favicon],
]
export const HOT_PAGES: Mount[] = [
  ['/c', canvas],
  ['/s', share],
]

/**
 * The app of the hot routes, and whether it has a route for a request: the Worker sends it only
 * those (src/index.ts), so that no middleware of its runs for a request the whole app answers.
 * Its `fallback` (the whole app) answers what a route of it passes on.
 */
export function hotApp(fallback: Fallback) {
  const app = composeApp(
    () => ({ api: HOT_API, reference: [], documents: HOT_DOCUMENTS, pages: HOT_PAGES }),
    fallback,
  )
  // Its routes alone, without the middleware (which `use` registers for ALL methods).
  const routes = new RegExpRouter<true>()
  for (const { method, path } of app.routes) if (method !== 'ALL') routes.add(method, path, true)
  const serves = (method: string, path: string) =>
    routes.match(method === 'HEAD' ? 'GET' : method, path)[0].length > 0
  return { app, serves }
}
