import { REVOKED_REMEMBERED_MS } from './shares/shares'
import { BACKFILL_BATCH, backfillTexts } from './search/backfill'
import {
  and,
  asc,
  eq,
  exists,
  inArray,
  isNotNull,
  isNull,
  lte,
  ne,
  notExists,
  or,
  sql,
} from 'drizzle-orm'
import { parseBlobKey } from '../storage/blobs'
import { one, value } from '../storage/db'
import type { BatchItem } from 'drizzle-orm/batch'
import {
  archives,
  canvases,
  comments,
  files,
  idempotencyKeys,
  sessions,
  shareExpiries,
  revokedLinks,
  shareLinks,
  sweepState,
  versionItems,
  versions,
  workspaces,
} from '../storage/schema'
import { newId } from '../lib/crypto'
import type { Services } from './services'
import { archivesOfRemovedCanvas } from './archives/store'
import { pastBudgets } from './archives/budget'
import { sweepGrants } from './oauth/grants'
import { sweepDeliveries } from './webhooks/delivery'
import { sweepInvites } from './workspaces/invites'
import { sweepResetLinks } from './passwords/resets'
import { sweepDevices } from './oauth/devices'
import { sweepAudit } from './audit/log'
import { sweepWorkspaces } from './workspaces/workspaces'
import { expiryStatement } from './audit/record'
import { reviewsOfRemovedCanvas } from './reviews/reviews'
import { sweepViews, viewsOfRemovedCanvas } from './views/views'

// The cron sweep (docs/api.md). Every step works in bounded batches, each batch one D1 round
// trip whose statements carry a handful of bound parameters (lists travel as one JSON parameter),
// and stops starting new batches when the time budget is spent; the next run resumes. Every step is
// idempotent, so overlapping runs are safe.

export type SweepOptions = {
  /** The clock: cron's scheduled time in production, any instant in tests. */
  now: number
  budgetMs?: number
  batchSize?: number
}

export type SweepSummary = {
  event: 'sweep'
  canvases: number
  versions: number
  files: number
  objects: number
  bytes_freed: number
  shares: number
  sessions: number
  idempotency_keys: number
  oauth_grants: number
  webhook_deliveries: number
  invites: number
  password_resets: number
  device_codes: number
  audit_events: number
  /** Rows of counts of reads past VIEW_RETENTION_DAYS. */
  view_counts: number
  /** Revoked links no longer remembered (their opens no longer count as refused ones). */
  revoked_links: number
  /** Canvases published before search whose text was read. */
  search_texts: number
  workspaces: number
  complete: boolean
  ms: number
}

const DAY = 86400_000
// Unfinalized objects with no file row are kept this long: a PUT may still be finishing.
const ORPHAN_OBJECT_AGE = DAY
const SHARE_RETENTION = 30 * DAY
const R2_DELETE_MAX = 1000
const CURSOR_KEY = 'objects_cursor'

// A list travels as one JSON parameter, its items read with json_each and json_extract: SQL
// functions the builder does not have.
const jsonEach = (list: unknown) => sql`json_each(${JSON.stringify(list)})`
type Orphan = { id: string; ws: string; sha: string; key: string; size: number }
const item = <K extends keyof Orphan>(name: K) =>
  sql<Orphan[K]>`json_extract(value, ${sql.raw(`'$.${name}'`)})`

export async function sweep(svc: Services, options: SweepOptions): Promise<SweepSummary> {
  const started = Date.now()
  const budget = options.budgetMs ?? 20_000
  const batch = options.batchSize ?? 500
  const inBudget = () => Date.now() - started < budget
  const now = options.now
  const summary: SweepSummary = {
    event: 'sweep',
    canvases: 0,
    versions: 0,
    files: 0,
    objects: 0,
    bytes_freed: 0,
    shares: 0,
    sessions: 0,
    idempotency_keys: 0,
    oauth_grants: 0,
    webhook_deliveries: 0,
    invites: 0,
    password_resets: 0,
    device_codes: 0,
    audit_events: 0,
    view_counts: 0,
    revoked_links: 0,
    search_texts: 0,
    workspaces: 0,
    complete: false,
    ms: 0,
  }
  // Everything the service keeps only for a while, and what its removal leaves to tidy, in the
  // order it is removed: each step takes one batch and answers whether it has more to do.
  const counted =
    (field: keyof SweepSummary, remove: (limit: number) => Promise<number>) => async () => {
      const removed = await remove(batch)
      ;(summary[field] as number) += removed
      return removed === batch
    }
  const steps = [
    () => removeExpiredCanvases(svc, now, batch, summary),
    () => examineUncheckedFiles(svc, now, batch),
    () => adoptOrphanObjects(svc, now, summary),
    () => removeDeletingFiles(svc, batch, summary),
    () => removeDeletingArchives(svc, batch, summary),
    () => removeOldShares(svc, now, batch, summary),
    () => forgetRevokedShares(svc, now, batch, summary),
    () => settleExpiredShares(svc, now, batch),
    () => removeExpiredSessions(svc, now, batch, summary),
    () => removeExpiredIdempotencyKeys(svc, now, batch, summary),
    counted('oauth_grants', (limit) => sweepGrants(svc, now, limit)),
    counted('webhook_deliveries', (limit) => sweepDeliveries(svc, now, limit)),
    counted('invites', (limit) => sweepInvites(svc, now, limit)),
    counted('password_resets', (limit) => sweepResetLinks(svc, now, limit)),
    counted('device_codes', (limit) => sweepDevices(svc, now, limit)),
    counted('audit_events', (limit) => sweepAudit(svc, now, limit)),
    counted('view_counts', (limit) => sweepViews(svc, now, limit)),
    // Last: a deleted workspace goes once its canvases and files are gone.
    counted('workspaces', (limit) => sweepWorkspaces(svc, now, limit)),
    async () => (await pastBudgets(svc, now, batch)).length === batch,
    // Canvases published before search, given their text while the run has time: last, since
    // each is a read of storage, and what expires must not wait for them.
    async () => {
      const read = await backfillTexts(svc, BACKFILL_BATCH)
      summary.search_texts += read
      return read === BACKFILL_BATCH
    },
  ]
  let complete = true
  for (const step of steps) {
    // A step answers true while it has more to do; each run makes progress on at least one batch.
    let more: boolean
    do more = await step()
    while (more && inBudget())
    if (more) {
      complete = false
      break
    }
  }
  summary.complete = complete
  summary.ms = Date.now() - started
  return summary
}

// D1 bills rows read, and a statement deleting through a list (`IN (SELECT value FROM
// json_each(?))`) reads about five rows per row it deletes, a cascade as many per child row;
// a statement naming one row by its whole key reads one. So the sweep gathers the keys with one
// query that walks an index, then deletes and examines row by row, every statement of a step in
// one batch (one round trip, one transaction). Figures in BENCHMARKS.md.

/**
 * Expired canvases (deleted ones among them: a delete expires a canvas) go with their versions,
 * items and share links. The files their items held are examined in the same transaction.
 */
async function removeExpiredCanvases(svc: Services, now: number, batch: number, s: SweepSummary) {
  const db = svc.db
  // The expired canvases in the order of canvases_expires_idx (expires_at, canvas_id), each with
  // its items (a canvas's items come together, in their key's order): at most `batch` items, so a
  // canvas of many versions of many files takes several batches, its items first, and goes itself
  // with the batch that finds none of them left. One walk of the index, nothing sorted.
  const held = await db
    .select({
      canvasId: canvases.canvasId,
      workspaceId: canvases.workspaceId,
      title: canvases.title,
      comments: canvases.commentCount,
      reviews: canvases.reviewCount,
      viewed: canvases.viewed,
      updatedAt: canvases.updatedAt,
      expiresAt: canvases.expiresAt,
      version: versionItems.version,
      path: versionItems.path,
      fileId: versionItems.fileId,
    })
    .from(canvases)
    .leftJoin(versionItems, eq(versionItems.canvasId, canvases.canvasId))
    .where(and(isNotNull(canvases.expiresAt), lte(canvases.expiresAt, now)))
    .orderBy(asc(canvases.expiresAt), asc(canvases.canvasId))
    .limit(batch)
  if (held.length === 0) return false
  const ids = [...new Set(held.map((h) => h.canvasId))]
  const gone = new Map(held.map((h) => [h.canvasId, h]))
  // The list may be cut short inside its last canvas: that one waits for the next batch, unless
  // it is the only one (a canvas of more items than a batch), whose items then go batch by batch
  // before it goes itself.
  const cut = held.length === batch
  const partial = cut && ids.length === 1 && held[0].fileId !== null
  const whole = partial ? [] : cut && ids.length > 1 ? ids.slice(0, -1) : ids
  const items = held.filter((h) => h.fileId !== null && (partial || whole.includes(h.canvasId)))
  const versionKeys = partial
    ? []
    : [...new Map(items.map((h) => [`${h.canvasId}/${h.version}`, h])).values()]
  const commented = whole.filter((id) => held.some((h) => h.canvasId === id && h.comments > 0))
  const reviewed = whole.filter((id) => held.some((h) => h.canvasId === id && h.reviews > 0))
  const viewed = whole.filter((id) => held.some((h) => h.canvasId === id && h.viewed))
  const fileIds = [...new Set(items.map((h) => h.fileId!))]
  const expiryOf = (h: (typeof held)[number]) =>
    expiryStatement(svc, { ...h, deleted: wasDeleted(h) })
  const statements: BatchItem<'sqlite'>[] = [
    ...items.map((h) =>
      db
        .delete(versionItems)
        .where(
          and(
            eq(versionItems.canvasId, h.canvasId),
            eq(versionItems.version, h.version!),
            eq(versionItems.path, h.path!),
          ),
        ),
    ),
    // Before the canvas, each by its whole key (a read each; a range costs more, a cascade more
    // still): its versions, its comments when it has some (their table has no foreign key to
    // cascade by), its links. A version without items (written by a Worker running the code from
    // before sites), and a partial canvas's versions, go with their canvas (cascade); the
    // canvas's row counts them all out of the workspace's totals.
    ...versionKeys.map((h) =>
      db
        .delete(versions)
        .where(and(eq(versions.canvasId, h.canvasId), eq(versions.version, h.version!))),
    ),
    ...commented.map((id) => db.delete(comments).where(eq(comments.canvasId, id))),
    ...whole.map((id) => db.delete(shareLinks).where(eq(shareLinks.canvasId, id))),
    // Each canvas, and the audit log's record that it expired, written only when it went.
    ...whole.flatMap((id) => [
      db
        .delete(canvases)
        .where(
          and(
            eq(canvases.canvasId, id),
            isNotNull(canvases.expiresAt),
            lte(canvases.expiresAt, now),
          ),
        )
        .returning({ canvasId: canvases.canvasId }),
      expiryOf(gone.get(id)!),
    ]),
    // The archives its downloads stored, for removeDeletingArchives.
    ...whole.map((id) => archivesOfRemovedCanvas(svc, id)),
    // The reviews of those that have some, once they are gone.
    ...reviewed.flatMap((id) => reviewsOfRemovedCanvas(svc, id)),
    // Its counts of reads, of those read.
    ...viewed.flatMap((id) => viewsOfRemovedCanvas(svc, id)),
    // A partial canvas's versions still name their main files: those files are left for
    // examineUncheckedFiles, which comes to them once the canvas is gone.
    ...fileIds.map((fileId) =>
      partial
        ? db.update(files).set({ checkedAt: null }).where(eq(files.fileId, fileId))
        : examineFile(svc, now, fileId),
    ),
  ]
  const results = await db.batch(statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]])
  const firstCanvas = items.length + versionKeys.length + commented.length + whole.length
  s.canvases += results
    .slice(firstCanvas, firstCanvas + 2 * whole.length)
    .filter((rows, i) => i % 2 === 0 && (rows as unknown[]).length > 0).length
  s.versions += versionKeys.length
  return cut || ids.length === batch
}

/**
 * Whether a canvas's expiry was its deletion: deleting marks both times with the same instant
 * (domain/canvases/canvases.ts), and no other change can (a change needs the canvas unexpired,
 * and moves `updated_at` only to an earlier instant than `expires_at`). Told from the row the
 * walk reads anyway, not from the audit log: asking the log cost a row read for every canvas.
 */
const wasDeleted = (h: { updatedAt: number; expiresAt: number | null }) =>
  h.expiresAt !== null && h.updatedAt >= h.expiresAt

/** How long a file nothing holds is kept after it was last touched: an upload URL's life, and more. */
const graceOf = (svc: Services) => (svc.settings.uploadUrlTtl + 3600) * 1000

/**
 * Examines one file: past its grace period, marked `deleting` when no version holds it (a
 * version's files are its items, the main one included), else noted as checked; within it, left
 * for examineUncheckedFiles to come back to once it is over. From the mark on nothing can attach
 * or re-upload the file (those statements require another status), and the mark itself is
 * conditioned on there being no version: the race is settled by D1. Reads: the file, and one
 * index entry each to ask whether an item or a version holds it.
 */
function examineFile(svc: Services, now: number, fileId: string) {
  const db = svc.db
  const old = lte(files.touchedAt, now - graceOf(svc))
  const unheld = and(
    old,
    notExists(db.select(one).from(versionItems).where(eq(versionItems.fileId, files.fileId))),
    // Also the version rows' own main file: a version written without items (by a Worker
    // still running the code from before sites, during a deploy) keeps its file all the same.
    notExists(db.select(one).from(versions).where(eq(versions.fileId, files.fileId))),
  )
  return db
    .update(files)
    .set({
      status: sql`CASE WHEN ${unheld} THEN 'deleting' ELSE ${files.status} END`,
      checkedAt: sql`CASE WHEN ${old} THEN ${now} ELSE NULL END`,
    })
    .where(and(eq(files.fileId, fileId), ne(files.status, 'deleting')))
}

/**
 * Files never examined since they were made or since a canvas holding them went (checked_at NULL,
 * in a partial index of their own), once their grace period is over: uploads never attached, and
 * files whose canvases went before the grace period ended.
 */
async function examineUncheckedFiles(svc: Services, now: number, batch: number) {
  const db = svc.db
  const due = await db
    .select({ fileId: files.fileId })
    .from(files)
    .where(and(isNull(files.checkedAt), lte(files.touchedAt, now - graceOf(svc))))
    .orderBy(asc(files.touchedAt))
    .limit(batch)
  if (due.length === 0) return false
  const [first, ...rest] = due.map((f) => examineFile(svc, now, f.fileId))
  await db.batch([first, ...rest])
  return due.length === batch
}

/**
 * Storage objects that no file row names, older than a day, are adopted as `deleting` rows (so a
 * presign of the same content waits instead of trusting an object about to vanish), then removed
 * with the others. The listing resumes where the previous run stopped.
 */
async function adoptOrphanObjects(svc: Services, now: number, s: SweepSummary) {
  const db = svc.db
  const state = await db
    .select({ value: sweepState.value })
    .from(sweepState)
    .where(eq(sweepState.key, CURSOR_KEY))
    .get()
  const listing = await svc.bucket.list({
    prefix: 'files/',
    limit: R2_DELETE_MAX,
    cursor: state?.value,
  })
  const old = listing.objects.filter((o) => o.uploaded.getTime() <= now - ORPHAN_OBJECT_AGE)
  const candidates = old.map((o) => ({ key: o.key, size: o.size, parsed: parseBlobKey(o.key) }))
  const adoptable = candidates.filter((c) => c.parsed)
  const foreign = candidates.filter((c) => !c.parsed).map((c) => c.key)
  const rows = adoptable.map((c): Orphan => ({
    id: newId(),
    ws: c.parsed!.workspaceId,
    sha: c.parsed!.sha256,
    key: c.key,
    size: c.size,
  }))
  const cursorStatement = listing.truncated
    ? db
        .insert(sweepState)
        .values({ key: CURSOR_KEY, value: listing.cursor })
        .onConflictDoUpdate({ target: sweepState.key, set: { value: listing.cursor } })
    : db.delete(sweepState).where(eq(sweepState.key, CURSOR_KEY))
  const workspaceOf = () =>
    db
      .select(one)
      .from(workspaces)
      .where(eq(workspaces.workspaceId, item('ws')))
  // Rows adopted here are removed by removeDeletingFiles, with the others.
  const [, unowned] = await db.batch([
    db
      .insert(files)
      .select((qb) =>
        qb
          .select({
            fileId: item('id').as('file_id'),
            workspaceId: item('ws').as('workspace_id'),
            sha256: item('sha').as('sha256'),
            size: item('size').as('size'),
            mime: value(files.mime, 'application/octet-stream'),
            blobKey: item('key').as('blob_key'),
            status: value(files.status, 'deleting'),
            createdAt: value(files.createdAt, now),
            finalizedAt: value(files.finalizedAt, null),
            touchedAt: value(files.touchedAt, now),
            checkedAt: value(files.checkedAt, now),
            uploadedAt: value(files.uploadedAt, null),
          })
          .from(jsonEach(rows))
          .where(exists(workspaceOf())),
      )
      .onConflictDoNothing({ target: [files.workspaceId, files.sha256] })
      .returning({ blobKey: files.blobKey }),
    // Objects of workspaces that no longer exist: nobody can upload there, delete them directly.
    db
      .select({ key: item('key').as('key'), size: item('size').as('size') })
      .from(jsonEach(rows))
      .where(notExists(workspaceOf())),
    cursorStatement,
  ])
  const direct = [...foreign, ...unowned.map((r) => r.key)]
  if (direct.length > 0) {
    await svc.bucket.delete(direct)
    s.objects += direct.length
    const sizes = new Map(candidates.map((c) => [c.key, c.size]))
    for (const key of direct) s.bytes_freed += sizes.get(key) ?? 0
  }
  return listing.truncated
}

/** Deletes the objects of `deleting` files, then their rows (one by one: a read each). */
async function removeDeletingFiles(svc: Services, batch: number, s: SweepSummary) {
  const db = svc.db
  const results = await db
    .select({ fileId: files.fileId, blobKey: files.blobKey, size: files.size })
    .from(files)
    // Spelled out, not bound, so SQLite sees the partial index files_deleting_idx applies.
    .where(sql`${files.status} = 'deleting'`)
    .limit(Math.min(batch, R2_DELETE_MAX))
  if (results.length === 0) return false
  await svc.bucket.delete(results.map((r) => r.blobKey))
  const [first, ...rest] = results.map((r) =>
    db
      .delete(files)
      .where(and(eq(files.fileId, r.fileId), eq(files.status, 'deleting')))
      .returning({ size: files.size }),
  )
  const deleted = (await db.batch([first, ...rest])).flat()
  s.files += deleted.length
  s.objects += deleted.length
  for (const row of deleted) s.bytes_freed += row.size
  return results.length === Math.min(batch, R2_DELETE_MAX)
}

/** The stored archives of removed canvases: their objects, then their rows. */
async function removeDeletingArchives(svc: Services, batch: number, s: SweepSummary) {
  const db = svc.db
  const gone = await db
    .select({
      canvasId: archives.canvasId,
      version: archives.version,
      blobKey: archives.blobKey,
      size: archives.size,
    })
    .from(archives)
    // Spelled out, not bound, so SQLite sees the partial index archives_deleting_idx applies.
    .where(sql`${archives.status} = 'deleting'`)
    .limit(Math.min(batch, R2_DELETE_MAX))
  if (gone.length === 0) return false
  await svc.bucket.delete(gone.map((a) => a.blobKey))
  const [first, ...rest] = gone.map((a) =>
    db
      .delete(archives)
      .where(and(eq(archives.canvasId, a.canvasId), eq(archives.version, a.version))),
  )
  await db.batch([first, ...rest])
  s.objects += gone.length
  for (const a of gone) s.bytes_freed += a.size ?? 0
  return gone.length === Math.min(batch, R2_DELETE_MAX)
}

/** Links expired for over 30 days, and links of deleted canvases 30 days after creation. */
async function removeOldShares(svc: Services, now: number, batch: number, s: SweepSummary) {
  const db = svc.db
  const cutoff = now - SHARE_RETENTION
  const old = db
    .select({ token: shareLinks.token })
    .from(shareLinks)
    .where(
      or(
        lte(shareLinks.expiresAt, cutoff),
        and(isNull(shareLinks.canvasId), lte(shareLinks.createdAt, cutoff)),
      ),
    )
    .limit(batch)
  const deleted = await db
    .delete(shareLinks)
    .where(inArray(shareLinks.token, old))
    .returning({ token: shareLinks.token })
  s.shares += deleted.length
  return deleted.length === batch
}

/** Links revoked over 30 days ago: an open of one counts as a refused one no more. */
async function forgetRevokedShares(svc: Services, now: number, batch: number, s: SweepSummary) {
  const db = svc.db
  const old = db
    .select({ token: revokedLinks.token })
    .from(revokedLinks)
    .where(lte(revokedLinks.revokedAt, now - REVOKED_REMEMBERED_MS))
    .limit(batch)
  const forgotten = await db.delete(revokedLinks).where(inArray(revokedLinks.token, old))
  const removed = forgotten.meta.changes ?? 0
  s.revoked_links += removed
  return removed === batch
}

/**
 * Links expired since the last run leave the running total of active links (workspace_usage,
 * through share_expiries): until then usage finds and subtracts them, a row read each.
 */
async function settleExpiredShares(svc: Services, now: number, batch: number) {
  const db = svc.db
  const due = db
    .select({ token: shareExpiries.token })
    .from(shareExpiries)
    // Spelled out, not bound, so SQLite sees the partial index share_expiries_due_idx applies.
    .where(and(sql`${shareExpiries.settled} = 0`, lte(shareExpiries.expiresAt, now)))
    .limit(batch)
  const settled = await db
    .update(shareExpiries)
    .set({ settled: true })
    .where(inArray(shareExpiries.token, due))
    .returning({ token: shareExpiries.token })
  return settled.length === batch
}

async function removeExpiredSessions(svc: Services, now: number, batch: number, s: SweepSummary) {
  const db = svc.db
  const expired = db
    .select({ sessionHash: sessions.sessionHash })
    .from(sessions)
    .where(lte(sessions.expiresAt, now))
    .limit(batch)
  const deleted = await db
    .delete(sessions)
    .where(inArray(sessions.sessionHash, expired))
    .returning({ sessionHash: sessions.sessionHash })
  s.sessions += deleted.length
  return deleted.length === batch
}

/** Idempotency keys past their day (or a presign's shorter one); a claim then counts as absent. */
async function removeExpiredIdempotencyKeys(
  svc: Services,
  now: number,
  batch: number,
  s: SweepSummary,
) {
  const db = svc.db
  // rowid: the table's key is two columns, and the builder has no row-value IN.
  const rowid = sql<number>`rowid`
  const expired = db
    .select({ rowid: rowid.as('rowid') })
    .from(idempotencyKeys)
    .where(lte(idempotencyKeys.expiresAt, now))
    .limit(batch)
  const deleted = await db
    .delete(idempotencyKeys)
    .where(inArray(rowid, expired))
    .returning({ key: idempotencyKeys.key })
  s.idempotency_keys += deleted.length
  return deleted.length === batch
}
