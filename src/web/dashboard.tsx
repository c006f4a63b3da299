import { cliInstall } from './cli-package'
import { publicOrigin } from '../http/context'
import { checkedBy } from '../http/actor/steps'
import { may, READ } from '../http/actor/need'
import { CHANGING, PUBLISHING } from './needs'
import { Hono } from 'hono'
import type { AppEnv } from '../http/context'
import { authorFilter, ext as extSchema, listQuery } from '../schema/requests'
import { hasAnyUser } from '../domain/canvases/reads'
import { recentCanvases } from '../domain/canvases/recent'
import { searchWorkspace } from '../domain/search/search'
import { MAX_QUERY_LENGTH } from '../domain/search/query'
import { AppError } from '../lib/errors'
import type { Services } from '../domain/services'
import type { Actor } from '../domain/actor'
import { takeFlash } from './flash'
import { Dashboard, type DashboardCanvas } from './pages/dashboard'
import { weekViews } from '../domain/views/views'
import { Landing } from './pages/landing'
import { csrfToken, viewerOf } from './session'
import { settingsOf } from '../domain/workspaces/settings'
import { reviewsAwaiting } from '../domain/reviews/reviews'

// The home page: a signed-in person's canvases, most recently changed first, or the best matches
// of a search by words, filtered and paged, with a file drop to publish; anyone else meets what Canvas is and the way in (and a
// server nobody has signed up to yet sends its first visitor to sign up).
export const dashboard = new Hono<AppEnv>()

const PAGE_SIZE = 20

dashboard.get('/', checkedBy('page', { need: READ }), async (c) => {
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
  const search = c.req.query('q')?.trim().slice(0, MAX_QUERY_LENGTH) || undefined
  const author = authorFilter.safeParse(c.req.query('author')?.trim() || undefined)
  const filters = { ext: validExt, visibility, author: author.success ? author.data : undefined }
  const { actor } = c.var
  const offset = (page - 1) * PAGE_SIZE
  const [listed, settings, awaiting] = await Promise.all([
    search
      ? searched(svc, c.var.actor, { q: search, ...filters, offset }).then(withWeekViews(svc))
      : recentCanvases(svc, c.var.actor, {
          ...filters,
          limit: PAGE_SIZE + 1,
          offset,
        })
          .then((rows) => ({
            canvases: rows.slice(0, PAGE_SIZE),
            hasMore: rows.length > PAGE_SIZE,
          }))
          .then(withWeekViews(svc)),
    settingsOf(svc, session.workspace.workspace_id),
    reviewsAwaiting(svc, actor),
  ])
  return c.html(
    <Dashboard
      cli={cliInstall(c)}
      user={viewerOf(session)}
      csrf={await csrfToken(svc, session)}
      {...listed}
      filters={{ search, ...filters }}
      can={{ publish: may(actor, PUBLISHING), change: may(actor, CHANGING) }}
      page={page}
      awaiting={awaiting}
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

/**
 * The page's canvases with their views of the week (docs/readership.md), when reads are counted:
 * looked up for those read at all (the list says which), every match of a search.
 */
function withWeekViews(svc: Services) {
  return async <L extends { canvases: (DashboardCanvas & { viewed?: boolean })[] }>(listed: L) => {
    if (!svc.settings.viewAnalytics) return listed
    const read = listed.canvases.filter((c) => c.viewed !== false).map((c) => c.canvas_id)
    const views = await weekViews(svc, read)
    return {
      ...listed,
      canvases: listed.canvases.map((c) => ({ ...c, week_views: views.get(c.canvas_id) ?? 0 })),
    }
  }
}

/** A page of a search's matches, or why the words typed are not a search. */
async function searched(
  svc: Services,
  actor: Actor,
  query: {
    q: string
    ext?: string
    visibility?: 'private' | 'public'
    author?: string
    offset: number
  },
) {
  try {
    const page = await searchWorkspace(svc, actor, { ...query, limit: PAGE_SIZE })
    return { canvases: page.results, hasMore: page.next_cursor !== null }
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'invalid_request') throw err
    return { canvases: [], hasMore: false, searchError: err.message.replace(/^q: /, '') }
  }
}
