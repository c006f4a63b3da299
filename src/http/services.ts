import { createMiddleware } from 'hono/factory'
import { accessWatch, commentWaiter, liveNotifier, viewCounter } from '../live/notify'
import { queueEvents } from '../domain/webhooks/events'
import { getCookie, setCookie } from 'hono/cookie'
import { d1Session } from '../storage/db'
import { servicesOf } from '../domain/services'
import { readSettings } from '../lib/settings'
import { afterResponse, type AppEnv } from './context'
import { OAUTH_API_PATHS } from './oauth'

/**
 * Each request runs its D1 queries in a session (read replication): from the bookmark the client
 * last got, sent back in the `x-d1-bookmark` header (the CLI, any API client) or the bookmark
 * cookie (browsers, after a form post), so a replica answers it only once it holds the client's own
 * writes. The session's last bookmark goes out in the answer's header.
 */
export const services = createMiddleware<AppEnv>(async (c, next) => {
  const session = d1Session(
    c.env.DB,
    c.req.header(BOOKMARK_HEADER) ?? getCookie(c, BOOKMARK_COOKIE),
  )
  c.set(
    'svc',
    servicesOf(c.env, {
      db: session,
      // Open viewers hear of a write after its response has gone.
      live: liveNotifier(c.env.LIVE, (work) => afterResponse(c, work)),
      // So do the workspace's webhooks, through the queue.
      events: queueEvents(c.env.WEBHOOKS, (work) => afterResponse(c, work), Date.now),
      // An agent waiting for comments waits on the canvas's object (a long poll).
      waitForComment: commentWaiter(c.env.LIVE),
      // A person's read is gathered by the isolate, then counted by the canvas's object, after the
      // response (no D1 write).
      views: viewCounter(
        c.env.LIVE,
        (work) => afterResponse(c, work),
        readSettings(c.env).viewGatherMs,
      ),
      // A credential that ends closes what it opened: sockets and waits, wherever they are.
      access: accessWatch(c.env.PEOPLE),
      later: (work) => afterResponse(c, work),
    }),
  )
  await next()
  const bookmark = session.getBookmark()
  if (!bookmark) return
  try {
    c.res.headers.set(BOOKMARK_HEADER, bookmark)
  } catch {
    // A response whose headers cannot change (a stream passed through whole): none to add.
    return
  }
  // A browser sends no header of its own: after a write it gets the cookie, so the page it is
  // sent to next reads that write. Five minutes is far longer than a replica lags.
  const path = c.req.path
  const api = path.startsWith('/v1/') || path === '/mcp' || OAUTH_API_PATHS.includes(path)
  const wrote = c.req.method !== 'GET' && c.req.method !== 'HEAD' && c.res.status < 400
  if (!api && wrote) {
    setCookie(c, BOOKMARK_COOKIE, bookmark, {
      path: '/',
      httpOnly: true,
      secure: new URL(c.req.url).protocol === 'https:',
      sameSite: 'Lax',
      maxAge: 300,
    })
  }
})

export const BOOKMARK_HEADER = 'x-d1-bookmark'
const BOOKMARK_COOKIE = 'canvas_bookmark'
