import { and, desc, eq, gte, inArray, sql, sum } from 'drizzle-orm'
import { dateOf, firstDayOf, REFUSALS, type Refusal } from '../../lib/views'
import {
  canvases,
  canvasMemberViews,
  canvasViews,
  members as workspaceMembers,
  users,
} from '../../storage/schema'
import type { Actor } from '../actor'
import { canvasNotFound } from '../canvases/rows'
import { unexpired, unexpiredCanvasOf } from '../canvases/unexpired'
import { personName } from '../person-name'
import { iso, type Services } from '../services'

// Who read a canvas (docs/readership.md): its reads of the last `days` days as its object wrote
// them, by day, by version and by link, and which members read which version last.

/** The readership of a canvas of the actor's workspace over the last `days` days (today among them). */
export async function canvasReadership(
  svc: Services,
  actor: Actor,
  canvasId: string,
  days: number,
) {
  return (await readCanvasViews(svc, actor, canvasId, days)).views
}

/** The canvas's title, for its Readers page, and its readership. */
export async function readCanvasViews(svc: Services, actor: Actor, canvasId: string, days: number) {
  const db = svc.db
  const from = firstDayOf(days, svc.now())
  const [found, rows, members] = await db.batch([
    db
      .select({ title: canvases.title })
      .from(canvases)
      .where(unexpiredCanvasOf(actor, canvasId, svc.now())),
    db
      .select()
      .from(canvasViews)
      .where(and(eq(canvasViews.canvasId, canvasId), gte(canvasViews.day, from)))
      .orderBy(canvasViews.day),
    db
      .select({
        userId: canvasMemberViews.userId,
        name: personName,
        lastViewedAt: canvasMemberViews.lastViewedAt,
        lastVersion: canvasMemberViews.lastVersion,
      })
      .from(canvasMemberViews)
      .innerJoin(users, eq(users.userId, canvasMemberViews.userId))
      .innerJoin(workspaceMembers, memberNow(actor))
      .where(eq(canvasMemberViews.canvasId, canvasId))
      .orderBy(desc(canvasMemberViews.lastViewedAt))
      .limit(100),
  ])
  if (found.length === 0) throw canvasNotFound()
  const of = (kind: string) => rows.filter((r) => r.kind === kind)
  const byDay = of('day').map((r) => ({ date: dateOf(r.day), views: r.views, unique: r.readers }))
  const views = {
    canvas_id: canvasId,
    /** False when VIEW_ANALYTICS is off: nothing is counted, and the counts stand still. */
    enabled: svc.settings.viewAnalytics,
    days,
    total: byDay.reduce((sum, d) => sum + d.views, 0),
    /** Each day's distinct readers, added up: a reader is known within a day only. */
    unique: byDay.reduce((sum, d) => sum + d.unique, 0),
    by_day: byDay,
    by_version: sumBy(of('version'), (r) => Number(r.key)).map(([version, c]) => ({
      version,
      views: c.views,
    })),
    by_link: sumBy(of('link'), (r) => r.key).map(([token_prefix, c]) => ({
      token_prefix,
      views: c.views,
      unique: c.readers,
      last_viewed_at: iso(c.last),
    })),
    members: members.map((m) => ({
      user_id: m.userId,
      name: m.name,
      last_viewed_at: iso(m.lastViewedAt),
      last_version: m.lastVersion,
    })),
    ...refusedOpens(of('denied')),
  }
  return { title: found[0].title, views }
}

/**
 * A member's read joined to their membership of the actor's workspace: a person removed from it
 * is no longer its reader to show.
 */
const memberNow = (actor: Actor) =>
  and(
    eq(workspaceMembers.workspaceId, actor.workspaceId),
    eq(workspaceMembers.userId, canvasMemberViews.userId),
  )

/** The most read canvases a workspace lists at most. */
export const MOST_READ = 100

/**
 * The actor's workspace's most read canvases over the last `days` days (today among them), from
 * the workspace's index of its days of reads: canvases gone are left out.
 */
export async function workspaceReadership(svc: Services, actor: Actor, days: number) {
  const from = firstDayOf(days, svc.now())
  const views = sum(canvasViews.views).mapWith(Number)
  const rows = await svc.db
    .select({
      canvasId: canvasViews.canvasId,
      title: canvases.title,
      views,
      unique: sum(canvasViews.readers).mapWith(Number),
    })
    .from(canvasViews)
    .innerJoin(canvases, eq(canvases.canvasId, canvasViews.canvasId))
    .where(
      and(
        eq(canvasViews.workspaceId, actor.workspaceId),
        eq(canvasViews.kind, 'day'),
        gte(canvasViews.day, from),
        unexpired(svc.now()),
      ),
    )
    .groupBy(canvasViews.canvasId)
    .orderBy(desc(views), canvasViews.canvasId)
    .limit(MOST_READ)
  return {
    workspace_id: actor.workspaceId,
    enabled: svc.settings.viewAnalytics,
    days,
    canvases: rows.map((r) => ({
      canvas_id: r.canvasId,
      title: r.title,
      views: r.views,
      unique: r.unique,
    })),
  }
}

/** The days the dashboard shows each canvas's views of (today among them). */
export const WEEK = 7

// A kind of rows spelled out, not bound, so that SQLite sees its partial index applies:
// canvas_views_week_idx for the days, canvas_views_denied_idx for the refused opens.
const dayRows = sql`${canvasViews.kind} = 'day'`
const deniedRows = sql`${canvasViews.kind} = 'denied'`

/**
 * The views of the last WEEK days of each canvas of `canvasIds` (canvases of the actor's workspace
 * the caller has listed, at most a page), from the index of canvases' days alone: a canvas nobody
 * read in them is left out. No statement for none.
 */
export async function weekViews(svc: Services, canvasIds: string[]): Promise<Map<string, number>> {
  if (canvasIds.length === 0) return new Map()
  const views = sum(canvasViews.views).mapWith(Number)
  const rows = await svc.db
    .select({ canvasId: canvasViews.canvasId, views })
    .from(canvasViews)
    .where(
      and(
        inArray(canvasViews.canvasId, canvasIds),
        dayRows,
        gte(canvasViews.day, firstDayOf(WEEK, svc.now())),
      ),
    )
    .groupBy(canvasViews.canvasId)
  return new Map(rows.map((r) => [r.canvasId, r.views]))
}

/** How many teammates who read the latest version a canvas's page names at most. */
export const NAMED_READERS = 5

/**
 * What a canvas's page shows of its readers (the caller's canvas, read by its workspace), in one
 * round trip: its views on each of the last WEEK days it was read and the opens its links refused
 * in them, each from an index of its own kind of rows, and the members who read its `latest`
 * version, the most recent first.
 */
export async function canvasGlance(svc: Services, actor: Actor, canvasId: string, latest: number) {
  const db = svc.db
  const from = firstDayOf(WEEK, svc.now())
  const ofCanvas = and(eq(canvasViews.canvasId, canvasId), gte(canvasViews.day, from))
  const [days, refused, readers] = await db.batch([
    db
      .select({ day: canvasViews.day, views: canvasViews.views })
      .from(canvasViews)
      .where(and(ofCanvas, dayRows))
      .orderBy(canvasViews.day),
    db
      .select({ key: canvasViews.key, count: canvasViews.views })
      .from(canvasViews)
      .where(and(ofCanvas, deniedRows)),
    db
      .select({ name: personName })
      .from(canvasMemberViews)
      .innerJoin(users, eq(users.userId, canvasMemberViews.userId))
      .innerJoin(workspaceMembers, memberNow(actor))
      .where(
        and(eq(canvasMemberViews.canvasId, canvasId), eq(canvasMemberViews.lastVersion, latest)),
      )
      .orderBy(desc(canvasMemberViews.lastViewedAt))
      .limit(NAMED_READERS + 1),
  ])
  return {
    week: days.map((r) => ({ date: dateOf(r.day), views: r.views })),
    denied: byReason(refused),
    /** The latest version's readers among the members, NAMED_READERS at most. */
    latestReaders: readers.slice(0, NAMED_READERS).map((r) => r.name),
    /** More members read it than are named. */
    moreReaders: readers.length > NAMED_READERS,
  }
}

export type CanvasGlance = Awaited<ReturnType<typeof canvasGlance>>

type Row = typeof canvasViews.$inferSelect

/** The refused opens of the canvas's links by reason, and the readers they came from. */
function refusedOpens(rows: Row[]) {
  return {
    denied: byReason(rows.map((r) => ({ key: r.key, count: r.views }))),
    denied_unique: byReason(rows.map((r) => ({ key: r.key, count: r.readers }))),
  }
}

/** Counts of refused opens added up by reason (their rows' key), every reason told (none: 0). */
function byReason(rows: { key: string; count: number }[]) {
  const counts = Object.fromEntries(REFUSALS.map((reason) => [reason, 0])) as Record<
    Refusal,
    number
  >
  for (const row of rows) if (row.key in counts) counts[row.key as Refusal] += row.count
  return counts
}

/** The rows' counts added up by `key`, most read first. */
function sumBy<K>(rows: Row[], key: (row: Row) => K) {
  const sums = new Map<K, { views: number; readers: number; last: number }>()
  for (const row of rows) {
    const sum = sums.get(key(row)) ?? { views: 0, readers: 0, last: 0 }
    sum.views += row.views
    sum.readers += row.readers
    sum.last = Math.max(sum.last, row.lastAt)
    sums.set(key(row), sum)
  }
  return [...sums].sort((a, b) => b[1].views - a[1].views)
}

/** The statements that remove a removed canvas's counts (the sweep's, for a canvas `viewed`). */
export function viewsOfRemovedCanvas(svc: Services, canvasId: string) {
  return [
    svc.db.delete(canvasViews).where(eq(canvasViews.canvasId, canvasId)),
    svc.db.delete(canvasMemberViews).where(eq(canvasMemberViews.canvasId, canvasId)),
  ]
}

/** Removes at most `limit` days of counts older than VIEW_RETENTION_DAYS; answers how many. */
export async function sweepViews(svc: Services, now: number, limit: number): Promise<number> {
  const kept = firstDayOf(svc.settings.viewRetentionDays, now)
  const removed = await svc.db.run(
    sql`DELETE FROM canvas_views WHERE rowid IN
      (SELECT rowid FROM canvas_views WHERE day < ${kept} ORDER BY day LIMIT ${limit})`,
  )
  return removed.meta.changes ?? 0
}
