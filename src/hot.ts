import { canvases } from './api/canvases'
import { comments } from './api/comments'
import { shares } from './api/shares'
import { publicShares } from './api/public'
import { upload } from './api/upload'
import type { Mount } from './http/context'
import { FAVICON_PATH } from './lib/brand'
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
// these first, in this order, so a request either app serves is answered alike.

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

// The paths of the mounts at '/' (the favicon's) are told by name.
const HOT_PATHS = new Set(['/health', '/favicon.ico', FAVICON_PATH])
const HOT_PREFIXES = [...HOT_API, ...HOT_DOCUMENTS, ...HOT_PAGES]
  .map(([path]) => path)
  .filter((path) => path !== '/')

/** Whether the start's app has the routes of `path`: one of its paths, or below one of its mounts. */
export const isHot = (path: string) =>
  HOT_PATHS.has(path) ||
  HOT_PREFIXES.some(
    (prefix) =>
      path.startsWith(prefix) && (path.length === prefix.length || path[prefix.length] === '/'),
  )

/** The app of the hot routes; what none of them serves, `fallback` answers (the whole app). */
export const hotApp = (fallback: Fallback) =>
  composeApp(
    () => ({ api: HOT_API, reference: [], documents: HOT_DOCUMENTS, pages: HOT_PAGES }),
    fallback,
  )
