import { dayOf, type ViewEvent } from '../lib/views'

// What a canvas's object holds of its reads until it writes them to D1: counts by day, by version
// and by link, each with its unique readers, and each member's last read. Readers are told apart
// within a day by their hash, kept only until the day has passed.

type Count = { views: number; readers: number; last: number }

export type Tally = {
  /** `${day}|${kind}|${key}` → the counts gathered since the last write. */
  counts: Record<string, Count>
  /** A member's last read: user id → when and which version. */
  members: Record<string, { at: number; version: number }>
}

export const emptyTally = (): Tally => ({ counts: {}, members: {} })

/** The readers seen on one day, by dimension: `${kind}|${key}|${reader}`. */
export type Seen = Record<string, true>

/** Adds a read to the tally; `seen` (that day's readers) says whether it is a new reader. */
export function tallyView(tally: Tally, seen: Seen, view: ViewEvent) {
  const day = dayOf(view.at)
  const add = (kind: string, key: string) => {
    const id = `${day}|${kind}|${key}`
    const count = (tally.counts[id] ??= { views: 0, readers: 0, last: 0 })
    count.views++
    count.last = Math.max(count.last, view.at)
    const reader = `${kind}|${key}|${view.reader}`
    if (!seen[reader]) {
      seen[reader] = true
      count.readers++
    }
  }
  add('day', '')
  add('version', String(view.version))
  if (view.link) add('link', view.link)
  if (view.member) {
    const last = tally.members[view.member]
    if (!last || last.at <= view.at)
      tally.members[view.member] = { at: view.at, version: view.version }
  }
}

/** The statements that add a tally to D1: each count added to its row, each member's last read. */
export function tallyStatements(db: D1Database, canvasId: string, tally: Tally) {
  const counts = Object.entries(tally.counts).map(([id, c]) => {
    const [day, kind, key] = id.split('|')
    return db
      .prepare(
        `INSERT INTO canvas_views (canvas_id, day, kind, key, views, readers, last_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
         ON CONFLICT (canvas_id, day, kind, key) DO UPDATE SET
           views = views + excluded.views,
           readers = readers + excluded.readers,
           last_at = max(last_at, excluded.last_at)`,
      )
      .bind(canvasId, Number(day), kind, key, c.views, c.readers, c.last)
  })
  const members = Object.entries(tally.members).map(([userId, last]) =>
    db
      .prepare(
        `INSERT INTO canvas_member_views (canvas_id, user_id, last_viewed_at, last_version)
         VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (canvas_id, user_id) DO UPDATE SET
           last_viewed_at = excluded.last_viewed_at,
           last_version = excluded.last_version
         WHERE excluded.last_viewed_at >= last_viewed_at`,
      )
      .bind(canvasId, userId, last.at, last.version),
  )
  return [...counts, ...members]
}
