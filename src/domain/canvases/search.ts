import { and, desc, eq, sql } from 'drizzle-orm'
import type { Canvas } from '../../schema/responses'
import { canvases } from '../../storage/schema'
import { listColumns, presentCanvas, type Visibility } from './rows'
import { unexpired } from './unexpired'
import type { Actor, Services } from '../services'

// The web dashboard's list: the most recently changed canvases first (a canvas just updated to v6
// leads the list), filtered by type and visibility, and searched by title.

export type RecentQuery = {
  /** Words of the title, matched anywhere and without regard to ASCII case. */
  search?: string
  visibility?: Visibility
  ext?: string
  limit: number
  offset: number
}

export const MAX_SEARCH_LENGTH = 100

export async function recentCanvases(
  svc: Services,
  actor: Actor,
  query: RecentQuery,
): Promise<Canvas[]> {
  // No title holds a control character (titles refuse them), so such a search finds nothing.
  if (query.search && /\p{Cc}/u.test(query.search)) return []
  // As the API's list, the page is read from an index holding every column shown
  // (canvases_workspace_updated_idx), one row read per canvas. A title search reads the
  // workspace's entries, which the page size and offset cap do not bound: it is one person's own
  // list, typed into a box.
  return svc.db
    .select(listColumns)
    .from(canvases)
    .where(
      and(
        eq(canvases.workspaceId, actor.workspaceId),
        unexpired(svc.now()),
        query.visibility ? eq(canvases.visibility, query.visibility) : undefined,
        query.ext ? eq(canvases.ext, query.ext) : undefined,
        query.search
          ? sql`${canvases.title} LIKE ${`%${likeEscaped(query.search)}%`} ESCAPE '\\'`
          : undefined,
      ),
    )
    .orderBy(desc(canvases.updatedAt), desc(canvases.canvasId))
    .limit(query.limit)
    .offset(query.offset)
    .then((rows) => rows.map(presentCanvas))
}

/** The text with LIKE's wildcards taken literally: a search for "50%" finds "50%", not "50". */
function likeEscaped(text: string) {
  return text.replace(/[\\%_]/g, (ch) => `\\${ch}`)
}
