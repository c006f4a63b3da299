import { and, eq, exists, gt, ne, sql, type SQL, type SQLWrapper } from 'drizzle-orm'
import { AppError } from '../../lib/errors'
import { formatSize } from '../../lib/format'
import type { Bindable, Database } from '../../storage/db'
import { files, workspaceUsage, workspaces } from '../../storage/schema'
import type { Services } from '../services'

// A workspace's storage quota (`quota_bytes`, else WORKSPACE_QUOTA_BYTES). What it holds against
// the quota is what it stores plus what it is receiving: the bytes of uploads presigned and
// neither finalized nor expired, since each of those may still become stored bytes. Every write
// of new content checks both inside its own statement, so no number of requests at once, or one
// after another, can register more than the quota: presign, finalize and a direct upload.

/**
 * The oldest touch of an upload whose URL may still be used: a presigned URL lives UPLOAD_URL_TTL
 * from its presign, and presigning the same content again signs a new one (and touches the row).
 */
export const liveUploadsSince = (svc: Services) => svc.now() - svc.settings.uploadUrlTtl * 1000

/**
 * The bytes of the workspace's uploads under way (pending, touched since `since`), but for the
 * content `except`: read from `files_pending_idx` alone, as many entries as uploads in flight.
 */
function receiving(
  db: Database,
  workspaceId: SQLWrapper | Bindable<string>,
  since: Bindable<number>,
  except?: Bindable<string>,
) {
  return db
    .select({ bytes: sql<number>`coalesce(sum(${files.size}), 0)` })
    .from(files)
    .where(
      and(
        eq(files.workspaceId, workspaceId as string),
        eq(files.status, 'pending'),
        gt(files.touchedAt, since as number),
        except === undefined ? undefined : ne(files.sha256, except as string),
      ),
    )
}

/**
 * That registering the content `sha256` of `size` bytes keeps the workspace within its quota, as
 * a condition of a statement whose FROM holds the workspace's row (`workspaces`): content it holds
 * already (stored, or on its way) adds nothing; new content must fit beside what it stores and
 * what it is receiving. `fallback` is the deployment's quota (WORKSPACE_QUOTA_BYTES), null for
 * none; `since` is `liveUploadsSince`.
 */
export function roomFor(
  db: Database,
  sha256: Bindable<string>,
  size: Bindable<number>,
  fallback: Bindable<number | null>,
  since: Bindable<number>,
): SQL {
  const quota = sql`coalesce(${workspaces.quotaBytes}, ${fallback})`
  const held = db
    .select({ one: sql`1` })
    .from(files)
    .where(and(eq(files.workspaceId, workspaces.workspaceId), eq(files.sha256, sha256 as string)))
  const used = sql`coalesce((${stored(db, workspaces.workspaceId)}), 0) + (${receiving(db, workspaces.workspaceId, since)})`
  return sql`(${quota} IS NULL OR ${used} + ${size} <= ${quota} OR ${exists(held)})`
}

/**
 * That finishing the upload of the workspace's content `sha256` (`size` bytes) keeps it within its
 * quota, as a condition of the statement that marks the file ready: its bytes beside what the
 * workspace stores and its other uploads under way. An upload finished in time was counted when
 * presigned and passes unless the quota was lowered since; one whose URL expired meanwhile (its
 * room taken by others) is held to what is left.
 */
export function roomToFinish(
  svc: Services,
  workspaceId: string,
  sha256: string,
  size: number,
): SQL {
  const db = svc.db
  const quota = db
    .select({ quota: sql`coalesce(${workspaces.quotaBytes}, ${svc.settings.workspaceQuotaBytes})` })
    .from(workspaces)
    .where(eq(workspaces.workspaceId, workspaceId))
  const others = receiving(db, workspaceId, liveUploadsSince(svc), sha256)
  const used = sql`coalesce((${stored(db, workspaceId)}), 0) + (${others})`
  return sql`((${quota}) IS NULL OR ${used} + ${size} <= (${quota}))`
}

const stored = (db: Database, workspaceId: SQLWrapper | string) =>
  db
    .select({ bytes: workspaceUsage.storedBytes })
    .from(workspaceUsage)
    .where(eq(workspaceUsage.workspaceId, workspaceId as string))

/**
 * What the workspace stores and is receiving (but the content `except`), and may store (null: no
 * limit).
 */
export async function quotaOf(svc: Services, workspaceId: string, except?: string) {
  const [[row], [pending]] = await svc.db.batch([
    svc.db
      .select({ quota: workspaces.quotaBytes, stored: workspaceUsage.storedBytes })
      .from(workspaces)
      .leftJoin(workspaceUsage, eq(workspaceUsage.workspaceId, workspaces.workspaceId))
      .where(eq(workspaces.workspaceId, workspaceId)),
    receiving(svc.db, workspaceId, liveUploadsSince(svc), except),
  ])
  return {
    stored: row?.stored ?? 0,
    receiving: pending?.bytes ?? 0,
    allowed: row?.quota ?? svc.settings.workspaceQuotaBytes,
  }
}

type Held = Awaited<ReturnType<typeof quotaOf>>

/** The refusal of `size` more bytes, saying what is used and allowed. */
export function quotaExceeded({ stored, receiving, allowed }: Held, size: number) {
  const cap = allowed ?? 0
  const used = stored + receiving
  const under = receiving > 0 ? `, ${formatSize(receiving)} of it in uploads under way` : ''
  return new AppError(
    'quota_exceeded',
    `the workspace holds ${formatSize(used)} of its ${formatSize(cap)} quota ` +
      `(${used} of ${cap} bytes${under}); ${formatSize(size)} more would pass it: delete ` +
      'canvases, finish or drop uploads, or ask an admin to raise the quota',
  )
}

/**
 * After a write of new content registered nothing: refuses it (413 `quota_exceeded`) when the
 * quota is why. Content the workspace holds already passes.
 */
export async function requireRoom(
  svc: Services,
  workspaceId: string,
  sha256: string,
  size: number,
) {
  const held = await quotaOf(svc, workspaceId)
  if (held.allowed === null || held.stored + held.receiving + size <= held.allowed) return
  const row = await svc.db
    .select({ one: sql`1` })
    .from(files)
    .where(and(eq(files.workspaceId, workspaceId), eq(files.sha256, sha256)))
    .get()
  if (!row) throw quotaExceeded(held, size)
}
