import { Hono } from 'hono'
import { open } from '../http/actor/steps'
import type { AppEnv } from '../http/context'
import { FAVICON_PATH } from '../lib/brand'

// The app's icon, for the browser's tab and bookmarks: one small SVG served by the Worker itself
// (browsers ask for /favicon.ico on every origin they load, the content origin's frames included).

/** The logo on a rounded square: a page with a folded corner and lines of text. */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
  '<rect width="32" height="32" rx="7" fill="#0969da"/>' +
  '<path d="M10 6.5h9.5l5 5V25a1.5 1.5 0 0 1-1.5 1.5H10A1.5 1.5 0 0 1 8.5 25V8A1.5 1.5 0 0 1 10 6.5z" fill="#fff"/>' +
  '<path d="M19.5 6.5v5h5z" fill="#9ec5fe"/>' +
  '<path d="M12 15.5h8.5M12 19h8.5M12 22.5h5" stroke="#0969da" stroke-width="1.8" stroke-linecap="round"/>' +
  '</svg>'

export const favicon = new Hono<AppEnv>()

const answer = () =>
  new Response(FAVICON_SVG, {
    headers: {
      'Content-Type': 'image/svg+xml',
      // Its name never changes: a day, then checked again.
      'Cache-Control': 'public, max-age=86400',
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
    },
  })

favicon.get(FAVICON_PATH, open, answer)
favicon.get('/favicon.ico', open, answer)
