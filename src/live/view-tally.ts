import { DAY_MS, dayOf, type ViewEvent } from '../lib/views'

// What a canvas's object holds of its reads until it writes them to D1 (docs/readership.md), in
// the object's own SQLite, which outlives its eviction: counts by day, by version and by link,
// each with its distinct readers, and each member's last read. A day's readers (their hashes) are
// kept only until the day is over, to tell a new reader from one seen that day.

const SCHEMA = `
CREATE TABLE IF NOT EXISTS view_counts (
  day INTEGER NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL,
  views INTEGER NOT NULL, readers INTEGER NOT NULL, last_at INTEGER NOT NULL,
  PRIMARY KEY (day, kind, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS view_readers (
  day INTEGER NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL, reader TEXT NOT NULL,
  PRIMARY KEY (day, kind, key, reader)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS member_reads (
  user_id TEXT PRIMARY KEY, at INTEGER NOT NULL, version INTEGER NOT NULL
) WITHOUT ROWID;`

type Count = {
  day: number
  kind: string
  key: string
  views: number
  readers: number
  last_at: number
}
type MemberRead = { user_id: string; at: number; version: number }

/** The counts taken from the object to be written to D1. */
export type Tally = { counts: Count[]; members: MemberRead[] }

const ADD_COUNT = `INSERT INTO view_counts (day, kind, key, views, readers, last_at)
  VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT (day, kind, key) DO UPDATE SET
    views = views + excluded.views,
    readers = readers + excluded.readers,
    last_at = max(last_at, excluded.last_at)`

const SET_MEMBER = `INSERT INTO member_reads (user_id, at, version) VALUES (?, ?, ?)
  ON CONFLICT (user_id) DO UPDATE SET at = excluded.at, version = excluded.version
  WHERE excluded.at >= at`

/**
 * The dimensions a read counts in: its day, its version, and its link when it came by one; a
 * refused open counts in its reason alone.
 */
function dimensions(view: ViewEvent): [string, string][] {
  if (view.refused) return [['denied', view.refused]]
  const dims: [string, string][] = [
    ['day', ''],
    ['version', String(view.version)],
  ]
  if (view.link) dims.push(['link', view.link])
  return dims
}

/** Adds reads to the object's counts; a reader first seen that day adds a reader too. */
export function tallyViews(sql: SqlStorage, views: ViewEvent[]) {
  sql.exec(SCHEMA)
  for (const view of views) {
    const day = dayOf(view.at)
    for (const [kind, key] of dimensions(view)) {
      const seen = sql.exec(
        'INSERT OR IGNORE INTO view_readers (day, kind, key, reader) VALUES (?, ?, ?, ?)',
        day,
        kind,
        key,
        view.reader,
      )
      sql.exec(ADD_COUNT, day, kind, key, 1, seen.rowsWritten > 0 ? 1 : 0, view.at)
    }
    if (view.member) sql.exec(SET_MEMBER, view.member, view.at, view.version)
  }
}

/**
 * Takes the counts out of the object, to be written: null when there are none. Synchronous, so no
 * read counted meanwhile can fall between what is taken and what is left.
 */
export function takeTally(sql: SqlStorage): Tally | null {
  sql.exec(SCHEMA)
  const counts = sql.exec<Count>('SELECT * FROM view_counts').toArray()
  const members = sql.exec<MemberRead>('SELECT * FROM member_reads').toArray()
  if (counts.length === 0 && members.length === 0) return null
  sql.exec('DELETE FROM view_counts')
  sql.exec('DELETE FROM member_reads')
  return { counts, members }
}

/** Whether the object holds counts not yet written. */
export function hasTally(sql: SqlStorage): boolean {
  sql.exec(SCHEMA)
  const [found] = sql
    .exec(
      'SELECT EXISTS (SELECT 1 FROM view_counts) OR EXISTS (SELECT 1 FROM member_reads) AS found',
    )
    .toArray()
  return Boolean(found?.found)
}

/** Puts back counts whose write failed, added to those counted since. */
export function restoreTally(sql: SqlStorage, tally: Tally) {
  for (const c of tally.counts)
    sql.exec(ADD_COUNT, c.day, c.kind, c.key, c.views, c.readers, c.last_at)
  for (const m of tally.members) sql.exec(SET_MEMBER, m.user_id, m.at, m.version)
}

/** Forgets the readers of the days before `today`: no read can count on them any more. */
export function forgetReaders(sql: SqlStorage, today: number) {
  sql.exec(SCHEMA)
  sql.exec('DELETE FROM view_readers WHERE day < ?', today)
}

/** When the last day whose readers the object holds is over; null when it holds none. */
export function readersKeptUntil(sql: SqlStorage): number | null {
  sql.exec(SCHEMA)
  const [row] = sql
    .exec<{ day: number | null }>('SELECT max(day) AS day FROM view_readers')
    .toArray()
  return row?.day == null ? null : (row.day + 1) * DAY_MS
}

/**
 * The statements that add a tally to D1: each count added to its row, each member's last read,
 * and the canvas marked as read. None for a canvas expired at `now` (a deleted one among them):
 * the sweep, which removes it with its counts, may have read its mark already.
 */
export function tallyStatements(db: D1Database, canvasId: string, tally: Tally, now: number) {
  const counts = tally.counts.map((c) =>
    db
      .prepare(
        // With its canvas's workspace; none when the canvas is gone (its counts go with it).
        `INSERT INTO canvas_views (canvas_id, workspace_id, day, kind, key, views, readers, last_at)
         SELECT ?1, workspace_id, ?2, ?3, ?4, ?5, ?6, ?7 FROM canvases
         WHERE canvas_id = ?1 AND (expires_at IS NULL OR expires_at > ?8)
         ON CONFLICT (canvas_id, day, kind, key) DO UPDATE SET
           views = views + excluded.views,
           readers = readers + excluded.readers,
           last_at = max(last_at, excluded.last_at)`,
      )
      .bind(canvasId, c.day, c.kind, c.key, c.views, c.readers, c.last_at, now),
  )
  const members = tally.members.map((m) =>
    db
      .prepare(
        `INSERT INTO canvas_member_views (canvas_id, user_id, last_viewed_at, last_version)
         SELECT ?1, ?2, ?3, ?4 FROM canvases
         WHERE canvas_id = ?1 AND (expires_at IS NULL OR expires_at > ?5)
         ON CONFLICT (canvas_id, user_id) DO UPDATE SET
           last_viewed_at = excluded.last_viewed_at,
           last_version = excluded.last_version
         WHERE excluded.last_viewed_at >= last_viewed_at`,
      )
      .bind(canvasId, m.user_id, m.at, m.version, now),
  )
  // The sweep removes a canvas's counts with it only when it has some.
  const viewed = db
    .prepare(
      `UPDATE canvases SET viewed = 1
       WHERE canvas_id = ?1 AND viewed = 0 AND (expires_at IS NULL OR expires_at > ?2)`,
    )
    .bind(canvasId, now)
  return [...counts, ...members, viewed]
}
