import { AppError } from '../lib/errors'
import { canvasNotFound } from './canvases'
import { hashPassword, newToken } from '../lib/crypto'
import { iso, isoOrNull, type Actor, type Services } from './services'
import { LIVE } from './live'

export type ShareRow = {
  token: string
  canvas_id: string
  version: number | null
  password_hash: string | null
  max_views: number | null
  view_count: number
  created_at: number
  expires_at: number | null
}

/** The share object (README: API); the password hash never leaves the server. */
export function presentShare(row: ShareRow) {
  return {
    token: row.token,
    canvas_id: row.canvas_id,
    expires_at: isoOrNull(row.expires_at),
    view_count: row.view_count,
    max_views: row.max_views,
    version: row.version,
    has_password: row.password_hash !== null,
    created_at: iso(row.created_at),
  }
}

export type CreateShareInput = {
  expires_in?: number
  password?: string
  max_views?: number
  version?: number
  token?: string
}

const SHARE_COLUMNS =
  'token, canvas_id, version, password_hash, max_views, view_count, created_at, expires_at'

/**
 * One statement: the link is inserted only for a live canvas of this workspace (and, when pinned,
 * an existing version of it), and only when the token is free.
 */
export async function createShare(
  svc: Services,
  actor: Actor,
  canvasId: string,
  input: CreateShareInput,
) {
  const now = svc.now()
  const token = input.token ?? newToken()
  const passwordHash = input.password ? await hashPassword(input.password) : null
  const expiresAt = input.expires_in ? now + input.expires_in * 1000 : null
  const row = await svc.d1
    .prepare(
      `INSERT INTO share_links (${SHARE_COLUMNS})
       SELECT ?1, c.canvas_id, ?2, ?3, ?4, 0, ?5, ?6 FROM canvases c
       WHERE c.canvas_id = ?7 AND c.workspace_id = ?8 AND (c.expires_at IS NULL OR c.expires_at > ?5)
         AND (?2 IS NULL OR EXISTS (SELECT 1 FROM versions v
                                    WHERE v.canvas_id = c.canvas_id AND v.version = ?2))
       ON CONFLICT (token) DO NOTHING
       RETURNING ${SHARE_COLUMNS}`,
    )
    .bind(
      token,
      input.version ?? null,
      passwordHash,
      input.max_views ?? null,
      now,
      expiresAt,
      canvasId,
      actor.workspaceId,
    )
    .first<ShareRow>()
  if (row) return presentShare(row)
  await requireLiveCanvas(svc, actor, canvasId)
  if (input.version !== undefined) {
    const version = await svc.d1
      .prepare('SELECT 1 FROM versions WHERE canvas_id = ? AND version = ?')
      .bind(canvasId, input.version)
      .first()
    if (!version) {
      throw new AppError('version_not_found', `version: canvas has no version ${input.version}`)
    }
  }
  throw new AppError('share_token_taken', 'token: this share token is already in use')
}

export async function listShares(svc: Services, actor: Actor, canvasId: string) {
  const { results } = await svc.d1
    .prepare(
      `SELECT c.canvas_id AS live, s.* FROM canvases c
       LEFT JOIN share_links s ON s.canvas_id = c.canvas_id
       WHERE c.canvas_id = ? AND c.workspace_id = ? AND ${LIVE}
       ORDER BY s.created_at DESC, s.token`,
    )
    .bind(canvasId, actor.workspaceId, svc.now())
    .all<ShareRow & { live: string }>()
  if (results.length === 0) throw canvasNotFound()
  return results.filter((r) => r.token !== null).map(presentShare)
}

export async function revokeShares(svc: Services, actor: Actor, canvasId: string) {
  const [canvas, deleted] = await svc.d1.batch([
    liveCanvas(svc, actor, canvasId),
    svc.d1
      .prepare(
        `DELETE FROM share_links WHERE canvas_id IN
           (SELECT c.canvas_id FROM canvases c WHERE c.canvas_id = ? AND c.workspace_id = ? AND ${LIVE})
         RETURNING token`,
      )
      .bind(canvasId, actor.workspaceId, svc.now()),
  ])
  if (canvas.results.length === 0) throw canvasNotFound()
  return deleted.results.length
}

export async function revokeShare(svc: Services, actor: Actor, canvasId: string, token: string) {
  const [canvas, deleted] = await svc.d1.batch([
    liveCanvas(svc, actor, canvasId),
    svc.d1
      .prepare(
        `DELETE FROM share_links WHERE token = ? AND canvas_id IN
           (SELECT c.canvas_id FROM canvases c WHERE c.canvas_id = ? AND c.workspace_id = ? AND ${LIVE})
         RETURNING token`,
      )
      .bind(token, canvasId, actor.workspaceId, svc.now()),
  ])
  if (canvas.results.length === 0) throw canvasNotFound()
  if (deleted.results.length === 0) throw shareNotFound()
}

export function shareNotFound() {
  return new AppError('share_not_found', 'share link not found')
}

function liveCanvas(svc: Services, actor: Actor, canvasId: string) {
  return svc.d1
    .prepare(`SELECT 1 FROM canvases c WHERE c.canvas_id = ? AND c.workspace_id = ? AND ${LIVE}`)
    .bind(canvasId, actor.workspaceId, svc.now())
}

async function requireLiveCanvas(svc: Services, actor: Actor, canvasId: string) {
  if (!(await liveCanvas(svc, actor, canvasId).first())) throw canvasNotFound()
}
