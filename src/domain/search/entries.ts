import { and, eq, sql } from 'drizzle-orm'
import type { Database } from '../../storage/db'
import { canvases, canvasTexts, versions } from '../../storage/schema'
import type { Actor } from '../actor'

// The statements that keep a canvas's entry in the search index in step with it, each written
// into the batch that changes the canvas (domain/canvases/canvases.ts): a version's text lands
// with the version, and a deleted canvas's words go with it. A new title and a canvas the sweep
// removes are followed by triggers (drizzle/0021_search.sql).

/**
 * The canvas's entry: its title and `text`, the text of the version this batch just made. Written
 * only when the canvas's current version is that one (made at `now` from `mainFile`), so a batch
 * whose version was refused (a conflict, content not ready) leaves the entry as it was.
 */
export function indexVersion(
  db: Database,
  canvasId: string,
  text: string,
  made: { now: number; mainFile: string },
) {
  return db
    .insert(canvasTexts)
    .select((qb) =>
      qb
        .select({
          id: sql<number>`NULL`.as('id'),
          canvasId: canvases.canvasId,
          workspaceId: canvases.workspaceId,
          title: canvases.title,
          body: sql<string>`${text}`.as('body'),
          textPending: sql<boolean>`0`.as('text_pending'),
        })
        .from(canvases)
        .innerJoin(
          versions,
          and(eq(versions.canvasId, canvases.canvasId), eq(versions.version, canvases.version)),
        )
        .where(
          and(
            eq(canvases.canvasId, canvasId),
            eq(versions.createdAt, made.now),
            eq(versions.fileId, made.mainFile),
          ),
        ),
    )
    .onConflictDoUpdate({
      target: canvasTexts.canvasId,
      set: { title: sql`excluded.title`, body: sql`excluded.body`, textPending: false },
    })
}

/** A deleted canvas is found no more, from the batch that deletes it. */
export const dropEntry = (db: Database, actor: Actor, canvasId: string) =>
  db
    .delete(canvasTexts)
    .where(and(eq(canvasTexts.canvasId, canvasId), eq(canvasTexts.workspaceId, actor.workspaceId)))
