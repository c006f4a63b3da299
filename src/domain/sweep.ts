import { parseBlobKey } from '../storage/blobs'
import { newId } from '../lib/crypto'
import type { Services } from './services'

// The cron sweep (README: The sweep). Every step works in bounded batches, each batch one D1 round
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
  complete: boolean
  ms: number
}

const DAY = 86400_000
// Unfinalized objects with no file row are kept this long: a PUT may still be finishing.
const ORPHAN_OBJECT_AGE = DAY
const SHARE_RETENTION = 30 * DAY
const R2_DELETE_MAX = 1000
const CURSOR_KEY = 'objects_cursor'

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
    complete: false,
    ms: 0,
  }
  const steps = [
    () => removeExpiredCanvases(svc, now, batch, summary),
    () => markUnreferencedFiles(svc, now, batch),
    () => adoptOrphanObjects(svc, now, summary),
    () => removeDeletingFiles(svc, batch, summary),
    () => removeOldShares(svc, now, batch, summary),
    () => removeExpiredSessions(svc, now, batch, summary),
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

/** Expired temporary canvases go with their versions (cascade) and share links. */
async function removeExpiredCanvases(svc: Services, now: number, batch: number, s: SweepSummary) {
  const expired = `SELECT canvas_id FROM canvases WHERE expires_at IS NOT NULL AND expires_at <= ?1
                   ORDER BY expires_at, canvas_id LIMIT ?2`
  const [versions, , deleted] = await svc.d1.batch([
    svc.d1
      .prepare(`SELECT COUNT(*) AS n FROM versions WHERE canvas_id IN (${expired})`)
      .bind(now, batch),
    svc.d1.prepare(`DELETE FROM share_links WHERE canvas_id IN (${expired})`).bind(now, batch),
    svc.d1
      .prepare(`DELETE FROM canvases WHERE canvas_id IN (${expired}) RETURNING canvas_id`)
      .bind(now, batch),
  ])
  s.versions += (versions.results[0] as { n: number }).n
  s.canvases += deleted.results.length
  return deleted.results.length === batch
}

/**
 * Files no version references, untouched for longer than an upload URL lives, become `deleting`.
 * From then on nothing can attach or re-upload them (those statements require another status),
 * and the mark itself is conditioned on there being no version: the race is settled by D1.
 */
async function markUnreferencedFiles(svc: Services, now: number, batch: number) {
  const graceMs = (svc.settings.uploadUrlTtl + 3600) * 1000
  const marked = await svc.d1
    .prepare(
      `UPDATE files SET status = 'deleting' WHERE file_id IN (
         SELECT f.file_id FROM files f
         WHERE f.touched_at <= ?1 AND f.status != 'deleting'
           AND NOT EXISTS (SELECT 1 FROM versions v WHERE v.file_id = f.file_id)
         LIMIT ?2)
       RETURNING file_id`,
    )
    .bind(now - graceMs, batch)
    .all()
  return marked.results.length === batch
}

/**
 * Storage objects that no file row names, older than a day, are adopted as `deleting` rows (so a
 * presign of the same content waits instead of trusting an object about to vanish), then removed
 * with the others. The listing resumes where the previous run stopped.
 */
async function adoptOrphanObjects(svc: Services, now: number, s: SweepSummary) {
  const state = await svc.d1
    .prepare('SELECT value FROM sweep_state WHERE key = ?')
    .bind(CURSOR_KEY)
    .first<{ value: string }>()
  const listing = await svc.bucket.list({
    prefix: 'files/',
    limit: R2_DELETE_MAX,
    cursor: state?.value,
  })
  const old = listing.objects.filter((o) => o.uploaded.getTime() <= now - ORPHAN_OBJECT_AGE)
  const candidates = old.map((o) => ({ key: o.key, size: o.size, parsed: parseBlobKey(o.key) }))
  const adoptable = candidates.filter((c) => c.parsed)
  const foreign = candidates.filter((c) => !c.parsed).map((c) => c.key)
  const rows = adoptable.map((c) => ({
    id: newId(),
    ws: c.parsed!.workspaceId,
    sha: c.parsed!.sha256,
    key: c.key,
    size: c.size,
  }))
  const cursorStatement = listing.truncated
    ? svc.d1
        .prepare('INSERT OR REPLACE INTO sweep_state (key, value) VALUES (?, ?)')
        .bind(CURSOR_KEY, listing.cursor)
    : svc.d1.prepare('DELETE FROM sweep_state WHERE key = ?').bind(CURSOR_KEY)
  // Rows adopted here are removed by removeDeletingFiles, with the others.
  const [, unowned] = await svc.d1.batch([
    svc.d1
      .prepare(
        `INSERT INTO files (file_id, workspace_id, sha256, size, mime, blob_key, status, created_at, touched_at)
         SELECT json_extract(value, '$.id'), json_extract(value, '$.ws'), json_extract(value, '$.sha'),
                json_extract(value, '$.size'), 'application/octet-stream', json_extract(value, '$.key'),
                'deleting', ?2, ?2
         FROM json_each(?1)
         WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.workspace_id = json_extract(value, '$.ws'))
         ON CONFLICT (workspace_id, sha256) DO NOTHING
         RETURNING blob_key`,
      )
      .bind(JSON.stringify(rows), now),
    // Objects of workspaces that no longer exist: nobody can upload there, delete them directly.
    svc.d1
      .prepare(
        `SELECT json_extract(value, '$.key') AS key, json_extract(value, '$.size') AS size
         FROM json_each(?1)
         WHERE NOT EXISTS (SELECT 1 FROM workspaces w WHERE w.workspace_id = json_extract(value, '$.ws'))`,
      )
      .bind(JSON.stringify(rows)),
    cursorStatement,
  ])
  const direct = [...foreign, ...(unowned.results as { key: string }[]).map((r) => r.key)]
  if (direct.length > 0) {
    await svc.bucket.delete(direct)
    s.objects += direct.length
    const sizes = new Map(candidates.map((c) => [c.key, c.size]))
    for (const key of direct) s.bytes_freed += sizes.get(key) ?? 0
  }
  return listing.truncated
}

/** Deletes the objects of `deleting` files, then their rows. Safe to repeat after a crash. */
async function removeDeletingFiles(svc: Services, batch: number, s: SweepSummary) {
  const { results } = await svc.d1
    .prepare(`SELECT file_id, blob_key, size FROM files WHERE status = 'deleting' LIMIT ?`)
    .bind(Math.min(batch, R2_DELETE_MAX))
    .all<{ file_id: string; blob_key: string; size: number }>()
  if (results.length === 0) return false
  await svc.bucket.delete(results.map((r) => r.blob_key))
  const deleted = await svc.d1
    .prepare(
      `DELETE FROM files WHERE status = 'deleting' AND file_id IN (SELECT value FROM json_each(?))
       RETURNING size`,
    )
    .bind(JSON.stringify(results.map((r) => r.file_id)))
    .all<{ size: number }>()
  s.files += deleted.results.length
  s.objects += deleted.results.length
  for (const row of deleted.results) s.bytes_freed += row.size
  return results.length === Math.min(batch, R2_DELETE_MAX)
}

/** Links expired for over 30 days, and links of deleted canvases 30 days after creation. */
async function removeOldShares(svc: Services, now: number, batch: number, s: SweepSummary) {
  const deleted = await svc.d1
    .prepare(
      `DELETE FROM share_links WHERE token IN (
         SELECT token FROM share_links
         WHERE expires_at <= ?1 OR (canvas_id IS NULL AND created_at <= ?1) LIMIT ?2)
       RETURNING token`,
    )
    .bind(now - SHARE_RETENTION, batch)
    .all()
  s.shares += deleted.results.length
  return deleted.results.length === batch
}

async function removeExpiredSessions(svc: Services, now: number, batch: number, s: SweepSummary) {
  const deleted = await svc.d1
    .prepare(
      `DELETE FROM sessions WHERE session_hash IN (
         SELECT session_hash FROM sessions WHERE expires_at <= ? LIMIT ?)
       RETURNING session_hash`,
    )
    .bind(now, batch)
    .all()
  s.sessions += deleted.results.length
  return deleted.results.length === batch
}
