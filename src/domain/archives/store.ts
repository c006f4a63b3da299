import { and, eq, lt, or, sql } from 'drizzle-orm'
import { archives, canvases } from '../../storage/schema'
import { unexpired, unexpiredCanvasOf } from '../canvases/unexpired'
import type { Services } from '../services'
import type { Actor } from '../actor'

// Where a version's archive is kept once made (docs/sites.md): one object per version, made by the
// first download that claims it while streaming it to its client, then served from storage.

export const archiveKey = (canvasId: string, version: number) =>
  `archives/${canvasId}/${version}.zip`

/** A claim older than this belongs to a download that died: another may make the archive. */
export const STALE_CLAIM_MS = 15 * 60_000

export type StoredArchive = { title: string; blobKey: string; size: number }

/**
 * The stored archive of a version the actor may read (null actor: the caller has authorized the
 * read), with the canvas's title; null when it has not been made, or the canvas is not live.
 */
export async function storedArchive(
  svc: Services,
  actor: Actor | null,
  canvasId: string,
  version: number,
): Promise<StoredArchive | null> {
  const now = svc.now()
  const row = await svc.db
    .select({ title: canvases.title, blobKey: archives.blobKey, size: archives.size })
    .from(canvases)
    .innerJoin(
      archives,
      and(
        eq(archives.canvasId, canvases.canvasId),
        eq(archives.version, version),
        eq(archives.status, 'ready'),
      ),
    )
    .where(
      actor
        ? unexpiredCanvasOf(actor, canvasId, now)
        : and(eq(canvases.canvasId, canvasId), unexpired(now)),
    )
    .get()
  return row && row.size !== null
    ? { title: row.title, blobKey: row.blobKey, size: row.size }
    : null
}

/**
 * Claims the making of a version's archive: true for one download at a time. A claim that went
 * stale, or a stored archive whose object turned out missing (`lost`), may be taken over.
 */
export async function claimArchive(
  svc: Services,
  canvasId: string,
  version: number,
  lost = false,
): Promise<boolean> {
  const now = svc.now()
  const claimed = await svc.db
    .insert(archives)
    .values({
      canvasId,
      version,
      blobKey: archiveKey(canvasId, version),
      size: null,
      status: 'building',
      createdAt: now,
    })
    .onConflictDoUpdate({
      target: [archives.canvasId, archives.version],
      set: { status: 'building', size: null, createdAt: now },
      setWhere: or(
        and(eq(archives.status, 'building'), lt(archives.createdAt, now - STALE_CLAIM_MS)),
        lost ? eq(archives.status, 'ready') : undefined,
      ),
    })
    .returning({ canvasId: archives.canvasId })
  return claimed.length > 0
}

/**
 * The archive is stored: later downloads are served from it. A claim taken over meanwhile leaves
 * the object to its new maker (the same bytes: an archive of a version is made the same way each
 * time); a canvas removed meanwhile leaves an object nobody would remove, so it goes now.
 */
export async function keepArchive(svc: Services, canvasId: string, version: number, size: number) {
  const [kept, [row]] = await svc.db.batch([
    svc.db
      .update(archives)
      .set({ status: 'ready', size })
      .where(claimOf(canvasId, version))
      .returning({ canvasId: archives.canvasId }),
    svc.db
      .select({ status: archives.status })
      .from(archives)
      .where(and(eq(archives.canvasId, canvasId), eq(archives.version, version))),
  ])
  if (kept.length === 0 && (!row || row.status === 'deleting')) {
    await svc.bucket.delete(archiveKey(canvasId, version))
  }
}

/** A claim given up (the download stopped before the end): the next download makes it again. */
export async function releaseArchive(svc: Services, canvasId: string, version: number) {
  await svc.db.delete(archives).where(claimOf(canvasId, version))
}

const claimOf = (canvasId: string, version: number) =>
  and(
    eq(archives.canvasId, canvasId),
    eq(archives.version, version),
    eq(archives.status, 'building'),
  )

/** The statement that hands a removed canvas's archives to the sweep. */
export const archivesOfRemovedCanvas = (svc: Services, canvasId: string) =>
  svc.db
    .update(archives)
    .set({ status: 'deleting' })
    .where(and(eq(archives.canvasId, canvasId), sql`${archives.status} <> 'deleting'`))
