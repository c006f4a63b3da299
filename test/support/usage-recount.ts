import { and, count, eq, gt, isNotNull, isNull, lt, or, sql, type SQLWrapper } from 'drizzle-orm'
import type { Services } from '../../src/domain/services'
import type { Actor } from '../../src/domain/actor'
import { unexpired } from '../../src/domain/canvases/unexpired'
import { canvases, files, shareLinks, versions } from '../../src/storage/schema'

// GET /v1/usage as it was answered before the running totals: every row of the workspace counted
// at `now`. The totals must always answer the same.

const total = (name: string, expression: SQLWrapper) =>
  sql<number>`COALESCE(SUM(${expression}), 0)`.as(name)

export async function recountUsage(svc: Services, actor: Actor) {
  return (await recountUsages(svc.db, [{ now: svc.now(), actor }]))[0]
}

/** `recountUsage` for several workspaces and instants at once, in one round trip. */
export async function recountUsages(db: Services['db'], checks: { now: number; actor: Actor }[]) {
  const statements = checks.flatMap(({ now, actor }) => {
    const liveInWorkspace = and(eq(canvases.workspaceId, actor.workspaceId), unexpired(now))
    return [
      db
        .select({
          total: count().as('total'),
          temporary: total('temporary', isNotNull(canvases.expiresAt)),
          permanent: total('permanent', isNull(canvases.expiresAt)),
          public: total('public', eq(canvases.visibility, 'public')),
        })
        .from(canvases)
        .where(liveInWorkspace),
      db
        .select({ count: count().as('count'), bytes: total('bytes', versions.size) })
        .from(canvases)
        .innerJoin(versions, eq(versions.canvasId, canvases.canvasId))
        .where(liveInWorkspace),
      db
        .select({ count: count().as('count'), bytes: total('bytes', files.size) })
        .from(files)
        .where(and(eq(files.workspaceId, actor.workspaceId), eq(files.status, 'ready'))),
      db
        .select({ active: count().as('active') })
        .from(shareLinks)
        .innerJoin(canvases, eq(canvases.canvasId, shareLinks.canvasId))
        .where(
          and(
            liveInWorkspace,
            or(isNull(shareLinks.expiresAt), gt(shareLinks.expiresAt, now)),
            or(isNull(shareLinks.maxViews), lt(shareLinks.viewCount, shareLinks.maxViews)),
          ),
        ),
    ] as const
  })
  // One batch of them all; its rows come back untyped, four statements to a check.
  const batch = statements as unknown as Parameters<typeof db.batch>[0]
  const rows = (await db.batch(batch)) as unknown as [Record<string, number>][]
  return checks.map(({ actor }, i) => {
    const [[c], [v], [f], [s]] = rows.slice(i * 4, i * 4 + 4)
    return {
      workspace_id: actor.workspaceId,
      canvases: {
        total: c.total,
        temporary: c.temporary,
        permanent: c.permanent,
        public: c.public,
        private: c.total - c.public,
      },
      versions: v.count,
      files: f.count,
      bytes: { content: v.bytes, stored: f.bytes },
      shares: { active: s.active },
    }
  })
}
