import {
  and,
  count,
  eq,
  gt,
  isNotNull,
  isNull,
  lt,
  lte,
  or,
  sql,
  type SQLWrapper,
} from 'drizzle-orm'
import type { Usage } from '../schema/responses'
import {
  canvases,
  shareExpiries,
  shareLinks,
  versions,
  workspaceUsage as totals,
  workspaces,
} from '../storage/schema'
import type { Database } from '../storage/db'
import type { Services } from './services'
import type { Actor } from './actor'
import { presentSettings } from './workspaces/settings'
import { unexpired } from './canvases/unexpired'

// Aggregates are SQL: the builder's sum() hands numbers back as strings, and has no COALESCE for
// an empty set. Each is named, since D1 hands a batch's rows over keyed by column name.
const total = (name: string, expression: SQLWrapper) =>
  sql<number>`COALESCE(SUM(${expression}), 0)`.as(name)

// A workspace gets its totals row when it is made (a trigger), or from the migration that made the
// table: without one there is no such workspace, and nothing to count.
const NONE = {
  canvases: 0,
  temporary: 0,
  public: 0,
  versions: 0,
  contentBytes: 0,
  files: 0,
  storedBytes: 0,
  shares: 0,
}

/**
 * Workspace statistics in one batched round trip, from the running totals in workspace_usage
 * (kept by the database's own triggers on every write), less what has expired since: canvases
 * past their expiry that the sweep has not yet removed, with their versions and links, and links
 * expired since the sweep last settled them. Each of those is a range of an index holding nothing
 * else, so the rows read follow what expired since the sweep last ran, not what the workspace
 * holds. The answer is the one counting every row would give.
 */
export async function workspaceUsage(svc: Services, actor: Actor): Promise<Usage> {
  const workspaceId = actor.workspaceId
  const db = svc.db
  const [[own], ...rows] = await db.batch([
    db
      .select({ defaultTtl: workspaces.defaultTtl, quotaBytes: workspaces.quotaBytes })
      .from(workspaces)
      .where(eq(workspaces.workspaceId, workspaceId)),
    ...countStatements(db, workspaceId, svc.now()),
  ])
  const settings = svc.settings
  return {
    ...totalsOf(workspaceId, rows),
    limits: {
      max_file_bytes: settings.maxFileBytes,
      max_direct_upload_bytes: settings.maxDirectUploadBytes,
      temp_canvas_ttl: settings.tempCanvasTtl,
      upload_url_ttl: settings.uploadUrlTtl,
      download_url_ttl: settings.downloadUrlTtl,
      ...presentSettings(svc, own ?? { defaultTtl: null, quotaBytes: null }),
    },
  }
}

/**
 * The workspace's totals without its settings, in one round trip: what the migration tests ask of
 * a database migrated only as far as the totals (test/node/migration.test.ts).
 */
export async function usageTotals(svc: Services, workspaceId: string) {
  return totalsOf(workspaceId, await counted(svc.db, workspaceId, svc.now()))
}

const counted = (db: Database, workspaceId: string, now: number) =>
  db.batch(countStatements(db, workspaceId, now))

/** The statements that count a workspace's usage: its totals row, less what has expired since. */
function countStatements(db: Database, workspaceId: string, now: number) {
  // The temporary and deleted canvases of the workspace that have expired, in
  // canvases_workspace_expires_idx.
  const expired = and(
    eq(canvases.workspaceId, workspaceId),
    isNotNull(canvases.expiresAt),
    lte(canvases.expiresAt, now),
  )
  const unused = or(isNull(shareLinks.maxViews), lt(shareLinks.viewCount, shareLinks.maxViews))
  // Links with an expiry of the workspace's unexpired canvases, by share_expiries_workspace_idx.
  const expiring = (settled: boolean) =>
    db
      .select({ n: count().as(settled ? 'counted_back' : 'not_yet_settled') })
      .from(shareExpiries)
      .innerJoin(canvases, eq(canvases.canvasId, shareExpiries.canvasId))
      .where(
        and(
          eq(shareExpiries.workspaceId, workspaceId),
          eq(shareExpiries.settled, settled),
          settled ? gt(shareExpiries.expiresAt, now) : lte(shareExpiries.expiresAt, now),
          unexpired(now),
        ),
      )
  return [
    db.select().from(totals).where(eq(totals.workspaceId, workspaceId)),
    db
      .select({
        count: count().as('gone'),
        public: total('gone_public', eq(canvases.visibility, 'public')),
      })
      .from(canvases)
      .where(expired),
    db
      .select({
        count: count().as('gone_versions'),
        bytes: total('gone_bytes', versions.size),
      })
      .from(canvases)
      .innerJoin(versions, eq(versions.canvasId, canvases.canvasId))
      .where(expired),
    // The links of expired canvases that the total counts: not used up, and without an expiry or
    // with one not yet settled.
    db
      .select({ n: count().as('gone_shares') })
      .from(canvases)
      .innerJoin(shareLinks, eq(shareLinks.canvasId, canvases.canvasId))
      .leftJoin(shareExpiries, eq(shareExpiries.token, shareLinks.token))
      .where(
        and(expired, unused, or(isNull(shareLinks.expiresAt), eq(shareExpiries.settled, false))),
      ),
    // Expired, but still in the total: the sweep has not settled them yet.
    expiring(false),
    // Settled by a sweep whose clock was ahead of this request's: not expired yet, so counted back.
    expiring(true),
  ] as const
}

type Counted = Awaited<ReturnType<typeof counted>>

/** The usage the counting statements' rows add up to. */
function totalsOf(workspaceId: string, counted: Counted) {
  const [[kept], [gone], [goneVersions], [goneShares], [unsettled], [settled]] = counted
  const t = kept ?? NONE
  const canvasTotal = t.canvases - gone.count
  const temporary = t.temporary - gone.count
  const publicCount = t.public - gone.public
  return {
    workspace_id: workspaceId,
    canvases: {
      total: canvasTotal,
      temporary,
      permanent: canvasTotal - temporary,
      public: publicCount,
      private: canvasTotal - publicCount,
    },
    versions: t.versions - goneVersions.count,
    files: t.files,
    // content: what the versions add up to; stored: what R2 holds after per-workspace dedupe.
    bytes: { content: t.contentBytes - goneVersions.bytes, stored: t.storedBytes },
    shares: { active: t.shares - goneShares.n - unsettled.n + settled.n },
  }
}
