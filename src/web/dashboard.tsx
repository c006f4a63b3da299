import { Hono } from 'hono'
import { requestOrigin, type AppEnv } from '../http/context'
import { ext as extSchema, listQuery, shareToken } from '../schema/requests'
import { hasAnyUser, listCanvases } from '../domain/canvas-reads'
import { sessionActor } from '../domain/users'
import { Dashboard } from './pages/dashboard'
import { csrfToken } from './session'

// The home page: a signed-in person's canvases, filtered and paged; anyone else is sent to log in
// (or, on a server nobody has signed up to yet, to sign up).
export const dashboard = new Hono<AppEnv>()

const PAGE_SIZE = 20

dashboard.get('/', async (c) => {
  const svc = c.var.svc
  const session = c.var.session
  if (!session) return c.redirect((await hasAnyUser(svc)) ? '/login' : '/signup')
  const page = Math.max(1, Math.min(100_000, Number(c.req.query('page')) || 1))
  // Filters are links a person edits: one that does not pass the API's rule is simply dropped.
  const ext = c.req.query('type')?.toLowerCase().replace(/^\./, '')
  const validExt = extSchema.safeParse(ext).success ? ext : undefined
  const wanted = listQuery.safeParse({ visibility: c.req.query('visibility') })
  const visibility = wanted.success ? wanted.data.visibility : undefined
  const result = await listCanvases(svc, sessionActor(session), {
    ext: validExt,
    visibility,
    limit: PAGE_SIZE + 1,
    offset: (page - 1) * PAGE_SIZE,
  })
  const shared = c.req.query('shared')
  const flash = shared && shareToken.safeParse(shared).success && (
    <div class="success" role="status">
      Share link: <code id="share-url">{`${requestOrigin(c)}/s/${shared}`}</code>{' '}
      <button type="button" data-copy="share-url">
        Copy
      </button>
    </div>
  )
  return c.html(
    <Dashboard
      user={session.user}
      csrf={await csrfToken(svc, session)}
      canvases={result.canvases.slice(0, PAGE_SIZE)}
      filters={{ ext: validExt, visibility }}
      page={page}
      hasMore={result.canvases.length > PAGE_SIZE}
      flash={flash || undefined}
      webOrigin={requestOrigin(c)}
    />,
  )
})
