import { and, count, eq, gt, isNotNull, isNull, lt, or, sql, type SQLWrapper } from 'drizzle-orm'
import type { Usage } from '../schema/responses'
import { canvases, files, shareLinks, versions } from '../storage/schema'
import type { Actor, Services } from './services'
import { live } from './live'

// Aggregates are SQL: the builder's sum() hands numbers back as strings, and has no COALESCE for
// an empty set. Each is named, since D1 hands a batch's rows over keyed by column name.
const total = (name: string, expression: SQLWrapper) =>
  sql<number>`COALESCE(SUM(${expression}), 0)`.as(name)

/** Workspace statistics in one batched round trip. */
export async function workspaceUsage(svc: Services, actor: Actor): Promise<Usage> {
  const now = svc.now()
  const db = svc.db
  const liveInWorkspace = and(eq(canvases.workspaceId, actor.workspaceId), live(now))
  const [[c], [v], [f], [s]] = await db.batch([
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
  ])
  const settings = svc.settings
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
    // content: what the versions add up to; stored: what R2 holds after per-workspace dedupe.
    bytes: { content: v.bytes, stored: f.bytes },
    shares: { active: s.active },
    limits: {
      max_file_bytes: settings.maxFileBytes,
      max_direct_upload_bytes: settings.maxDirectUploadBytes,
      temp_canvas_ttl: settings.tempCanvasTtl,
      upload_url_ttl: settings.uploadUrlTtl,
      download_url_ttl: settings.downloadUrlTtl,
    },
  }
}
