import { and, desc, eq, inArray, sql } from 'drizzle-orm'
import type { Canvas } from '../schema/responses'
import { canvases } from '../storage/schema'
import { presentCanvas, selectCanvas, type Visibility } from './canvas-rows'
import { live } from './live'
import type { Actor, Services } from './services'

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
  const order = [desc(canvases.updatedAt), desc(canvases.canvasId)]
  // As the API's list: the page's ids from the covering index, then only those rows joined. A
  // title search reads the workspace's rows, which the page size and offset cap do not bound:
  // it is one person's own list, typed into a box.
  const page = svc.db
    .select({ canvasId: canvases.canvasId })
    .from(canvases)
    .where(
      and(
        eq(canvases.workspaceId, actor.workspaceId),
        live(svc.now()),
        query.visibility ? eq(canvases.visibility, query.visibility) : undefined,
        query.ext ? eq(canvases.ext, query.ext) : undefined,
        query.search
          ? sql`${canvases.title} LIKE ${`%${likeEscaped(query.search)}%`} ESCAPE '\\'`
          : undefined,
      ),
    )
    .orderBy(...order)
    .limit(query.limit)
    .offset(query.offset)
  const rows = await selectCanvas(svc.db)
    .where(inArray(canvases.canvasId, page))
    .orderBy(...order)
  return rows.map(presentCanvas)
}

/** The text with LIKE's wildcards taken literally: a search for "50%" finds "50%", not "50". */
function likeEscaped(text: string) {
  return text.replace(/[\\%_]/g, (ch) => `\\${ch}`)
}
