import { and, desc, eq } from 'drizzle-orm'
import type { Canvas } from '../../schema/responses'
import { canvases } from '../../storage/schema'
import { authorOf, listColumns, presentCanvas, type Visibility } from './rows'
import { unexpired } from './unexpired'
import type { Services } from '../services'
import type { Actor } from '../actor'

// The web dashboard's list: the most recently changed canvases first (a canvas just updated to v6
// leads the list), filtered by type and visibility. Searching it by words: domain/search.

export type RecentQuery = {
  visibility?: Visibility
  ext?: string
  /** Who published them: `me`, a user id or an email. */
  author?: string
  limit: number
  offset: number
}

/** A canvas listed, and whether it has been read (only those have reads to look up). */
export type RecentCanvas = Canvas & { viewed: boolean }

export async function recentCanvases(
  svc: Services,
  actor: Actor,
  query: RecentQuery,
): Promise<RecentCanvas[]> {
  // As the API's list, the page is read from an index holding every column shown
  // (canvases_workspace_updated_idx), one row read per canvas.
  return svc.db
    .select({ ...listColumns, viewed: canvases.viewed })
    .from(canvases)
    .where(
      and(
        eq(canvases.workspaceId, actor.workspaceId),
        unexpired(svc.now()),
        query.visibility ? eq(canvases.visibility, query.visibility) : undefined,
        query.ext ? eq(canvases.ext, query.ext) : undefined,
        query.author ? eq(canvases.ownerUserId, authorOf(query.author, actor.userId)) : undefined,
      ),
    )
    .orderBy(desc(canvases.updatedAt), desc(canvases.canvasId))
    .limit(query.limit)
    .offset(query.offset)
    .then((rows) => rows.map((row) => ({ ...presentCanvas(row), viewed: row.viewed })))
}
