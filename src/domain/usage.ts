import type { Actor, Services } from './services'
import { LIVE } from './live'

/** Workspace statistics in one batched round trip. */
export async function workspaceUsage(svc: Services, actor: Actor) {
  const now = svc.now()
  const db = svc.d1
  const [canvases, versions, files, shares] = await db.batch([
    db
      .prepare(
        `SELECT COUNT(*) AS total,
                COALESCE(SUM(c.expires_at IS NOT NULL), 0) AS temporary,
                COALESCE(SUM(c.expires_at IS NULL), 0) AS permanent,
                COALESCE(SUM(c.visibility = 'public'), 0) AS public
         FROM canvases c WHERE c.workspace_id = ? AND ${LIVE}`,
      )
      .bind(actor.workspaceId, now),
    db
      .prepare(
        `SELECT COUNT(*) AS count, COALESCE(SUM(v.size), 0) AS bytes
         FROM canvases c JOIN versions v ON v.canvas_id = c.canvas_id
         WHERE c.workspace_id = ? AND ${LIVE}`,
      )
      .bind(actor.workspaceId, now),
    db
      .prepare(
        `SELECT COUNT(*) AS count, COALESCE(SUM(size), 0) AS bytes
         FROM files WHERE workspace_id = ? AND status = 'ready'`,
      )
      .bind(actor.workspaceId),
    db
      .prepare(
        `SELECT COUNT(*) AS active FROM share_links s JOIN canvases c ON c.canvas_id = s.canvas_id
         WHERE c.workspace_id = ? AND ${LIVE} AND (s.expires_at IS NULL OR s.expires_at > ?)
           AND (s.max_views IS NULL OR s.view_count < s.max_views)`,
      )
      .bind(actor.workspaceId, now, now),
  ])
  const c = canvases.results[0] as Record<string, number>
  const v = versions.results[0] as Record<string, number>
  const f = files.results[0] as Record<string, number>
  const s = shares.results[0] as Record<string, number>
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
