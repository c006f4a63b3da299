import { and, eq, inArray } from 'drizzle-orm'
import { canvases, canvasTexts, versionItems, versions } from '../../storage/schema'
import type { Services } from '../services'
import { versionText } from './text'

// Canvases published before search (drizzle/0026_search_backfill.sql) are found by their titles
// until their text is read: by the sweep, a batch each run, and by their workspace's search,
// which starts a batch of its own after its answer. Each canvas's text is read from its current
// version's files, as a new version's is, within the same bounds.

/** The most canvases one call reads: each is a storage read or a few. */
export const BACKFILL_BATCH = 20

/**
 * Reads the text of up to `limit` canvases still waiting for it, in `workspaceId` or anywhere;
 * answers how many were written. A canvas whose files cannot be read now is left for the next
 * call; one with no text to find (an image) is written empty, and waits no more.
 */
export async function backfillTexts(svc: Services, limit: number, workspaceId?: string) {
  const db = svc.db
  const waiting = await db
    .select({ canvasId: canvasTexts.canvasId, workspaceId: canvasTexts.workspaceId })
    .from(canvasTexts)
    .where(
      and(
        eq(canvasTexts.textPending, true),
        workspaceId === undefined ? undefined : eq(canvasTexts.workspaceId, workspaceId),
      ),
    )
    .limit(limit)
  if (waiting.length === 0) return 0
  const ids = waiting.map((w) => w.canvasId)
  // Each canvas's current version: its main path and its files.
  const [mains, items] = await db.batch([
    db
      .select({ canvasId: versions.canvasId, main: versions.mainPath })
      .from(versions)
      .innerJoin(
        canvases,
        and(eq(canvases.canvasId, versions.canvasId), eq(canvases.version, versions.version)),
      )
      .where(inArray(versions.canvasId, ids)),
    db
      .select({
        canvasId: versionItems.canvasId,
        path: versionItems.path,
        file_id: versionItems.fileId,
      })
      .from(versionItems)
      .innerJoin(
        canvases,
        and(
          eq(canvases.canvasId, versionItems.canvasId),
          eq(canvases.version, versionItems.version),
        ),
      )
      .where(inArray(versionItems.canvasId, ids)),
  ])
  const texts = await Promise.all(
    waiting.map(async ({ canvasId, workspaceId: ws }) => {
      const files = items.filter((i) => i.canvasId === canvasId)
      if (files.length === 0) return { canvasId, text: '' }
      const main = mains.find((m) => m.canvasId === canvasId)?.main || files[0].path
      try {
        return { canvasId, text: await versionText(svc, ws, { items: files, main }) }
      } catch {
        // Storage did not answer: the next call tries again.
        return null
      }
    }),
  )
  const read = texts.filter((t) => t !== null)
  if (read.length === 0) return 0
  const [first, ...rest] = read.map(({ canvasId, text }) =>
    db
      .update(canvasTexts)
      .set({ body: text, textPending: false })
      .where(and(eq(canvasTexts.canvasId, canvasId), eq(canvasTexts.textPending, true))),
  )
  await db.batch([first, ...rest])
  return read.length
}
