import { publicOrigin } from '../http/context'
import { checkedBy } from '../http/access'
import { Hono } from 'hono'
import type { AppEnv } from '../http/context'
import { ext as extSchema, listQuery } from '../schema/requests'
import { hasAnyUser } from '../domain/canvases/reads'
import { MAX_SEARCH_LENGTH, recentCanvases } from '../domain/canvases/search'
import { sessionActor } from '../domain/users'
import { takeFlash } from './flash'
import { Dashboard } from './pages/dashboard'
import { Landing } from './pages/landing'
import { csrfToken, viewerOf } from './session'
import { settingsOf } from '../domain/workspaces/settings'

// The home page: a signed-in person's canvases, most recently changed first, searched, filtered
// and paged, with a file drop to publish; anyone else meets what Canvas is and the way in (and a
// server nobody has signed up to yet sends its first visitor to sign up).
export const dashboard = new Hono<AppEnv>()

const PAGE_SIZE = 20

dashboard.get('/', checkedBy('page'), async (c) => {
  const svc = c.var.svc
  const session = c.var.session
  if (!session) {
    if (!(await hasAnyUser(svc))) return c.redirect('/signup')
    return c.html(<Landing signupOpen={svc.settings.signupOpen} />)
  }
  const page = Math.max(1, Math.min(100_000, Number(c.req.query('page')) || 1))
  // Filters are links a person edits: one that does not pass the API's rule is simply dropped.
  const ext = c.req.query('type')?.toLowerCase().replace(/^\./, '')
  const validExt = extSchema.safeParse(ext).success ? ext : undefined
  const wanted = listQuery.safeParse({ visibility: c.req.query('visibility') })
  const visibility = wanted.success ? wanted.data.visibility : undefined
  const search = c.req.query('q')?.trim().slice(0, MAX_SEARCH_LENGTH) || undefined
  const [canvases, settings] = await Promise.all([
    recentCanvases(svc, sessionActor(session), {
      search,
      ext: validExt,
      visibility,
      limit: PAGE_SIZE + 1,
      offset: (page - 1) * PAGE_SIZE,
    }),
    settingsOf(svc, session.workspace.workspace_id),
  ])
  return c.html(
    <Dashboard
      origin={publicOrigin(c).origin}
      user={viewerOf(session)}
      csrf={await csrfToken(svc, session)}
      canvases={canvases.slice(0, PAGE_SIZE)}
      filters={{ search, ext: validExt, visibility }}
      page={page}
      hasMore={canvases.length > PAGE_SIZE}
      newCanvasLife={settings.default_expires_in}
      flash={await takeFlash(c, { svc, session })}
      limits={{
        direct: svc.settings.maxDirectUploadBytes,
        file: svc.settings.maxFileBytes,
        siteItems: svc.settings.maxSiteItems,
      }}
    />,
  )
})
