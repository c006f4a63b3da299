import { AppError } from '../lib/errors'
import { defaultRenderer, findRenderer } from '../render/registry'
import { newId } from '../lib/crypto'
import { iso, isoOrNull, type Actor, type Services } from './services'
import { LIVE } from './live'

export type Visibility = 'private' | 'public'

type CanvasRow = {
  canvas_id: string
  owner_user_id: string
  title: string
  ext: string
  renderer_id: string
  visibility: Visibility
  version: number
  created_at: number
  updated_at: number
  expires_at: number | null
  size: number
  file_id: string
  sha256: string
  mime: string
}

// Every read of a canvas joins its current version and file: one statement, one round trip.
const SELECT_CANVAS = `
  SELECT c.canvas_id, c.workspace_id, c.owner_user_id, c.title, c.ext, c.renderer_id, c.visibility, c.version,
         c.created_at, c.updated_at, c.expires_at, v.size, f.file_id, f.sha256, f.mime
  FROM canvases c
  JOIN versions v ON v.canvas_id = c.canvas_id AND v.version = c.version
  JOIN files f ON f.file_id = v.file_id`

export function presentCanvas(row: CanvasRow) {
  return {
    canvas_id: row.canvas_id,
    owner_user_id: row.owner_user_id,
    title: row.title,
    ext: row.ext,
    renderer_id: row.renderer_id,
    visibility: row.visibility,
    version: row.version,
    size: row.size,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    expires_at: isoOrNull(row.expires_at),
  }
}

export function presentCanvasDetail(row: CanvasRow) {
  const renderer = findRenderer(row.renderer_id)
  return {
    ...presentCanvas(row),
    file: { file_id: row.file_id, sha256: row.sha256, size: row.size, mime: row.mime },
    renderer: { renderer_id: row.renderer_id, name: renderer?.name ?? row.renderer_id },
  }
}

export type CreateInput = {
  file_id: string
  title: string
  ext: string
  renderer_id?: string
  permanent?: boolean
}

/**
 * Canvas and version 1 are written in one transaction, each conditioned on the file being a
 * finalized file of this workspace, so no canvas ever exists without its content.
 */
export async function createCanvas(svc: Services, actor: Actor, input: CreateInput) {
  const rendererId = input.renderer_id ?? null
  if (rendererId) requireRenderer(rendererId)
  const now = svc.now()
  const canvasId = newId()
  const expiresAt = input.permanent ? null : now + svc.settings.tempCanvasTtl * 1000
  const known = findKnownRenderer(input.ext)
  const [, , selected] = await svc.db.batch([
    svc.db
      .prepare(
        `INSERT INTO canvases (canvas_id, workspace_id, owner_user_id, title, ext, renderer_id,
                               visibility, version, created_at, updated_at, expires_at)
         SELECT ?1, ?2, ?3, ?4, ?5,
                COALESCE(?6, CASE WHEN f.mime LIKE 'text/%' THEN 'text' ELSE 'download' END),
                'private', 1, ?7, ?7, ?8
         FROM files f WHERE f.file_id = ?9 AND f.workspace_id = ?2 AND f.status = 'ready'`,
      )
      .bind(
        canvasId,
        actor.workspaceId,
        actor.userId,
        input.title,
        input.ext,
        rendererId ?? known,
        now,
        expiresAt,
        input.file_id,
      ),
    svc.db
      .prepare(
        `INSERT INTO versions (canvas_id, version, file_id, size, created_at)
         SELECT c.canvas_id, 1, f.file_id, f.size, ?1
         FROM canvases c JOIN files f ON f.file_id = ?2 AND f.workspace_id = c.workspace_id
         WHERE c.canvas_id = ?3`,
      )
      .bind(now, input.file_id, canvasId),
    svc.db.prepare(`${SELECT_CANVAS} WHERE c.canvas_id = ?`).bind(canvasId),
  ])
  const row = (selected.results as CanvasRow[])[0]
  if (!row) await explainMissingFile(svc, actor, input.file_id)
  return presentCanvas(row)
}

export type ListQuery = { visibility?: Visibility; ext?: string; limit: number; offset: number }

export async function listCanvases(svc: Services, actor: Actor, query: ListQuery) {
  const conditions = ['c.workspace_id = ?', LIVE]
  const params: unknown[] = [actor.workspaceId, svc.now()]
  if (query.visibility) {
    conditions.push('c.visibility = ?')
    params.push(query.visibility)
  }
  if (query.ext) {
    conditions.push('c.ext = ?')
    params.push(query.ext)
  }
  // The page's ids come from the covering index alone; only those rows are then joined, so a deep
  // OFFSET skips index entries, not joined rows.
  const { results } = await svc.db
    .prepare(
      `${SELECT_CANVAS} WHERE c.canvas_id IN (
         SELECT c.canvas_id FROM canvases c WHERE ${conditions.join(' AND ')}
         ORDER BY c.created_at DESC, c.canvas_id DESC LIMIT ? OFFSET ?)
       ORDER BY c.created_at DESC, c.canvas_id DESC`,
    )
    .bind(...params, query.limit, query.offset)
    .all<CanvasRow>()
  return { canvases: results.map(presentCanvas), limit: query.limit, offset: query.offset }
}

export type UpdateInput = {
  file_id?: string
  title?: string
  visibility?: Visibility
  renderer_id?: string
}

/**
 * A new file bumps the version counter and inserts that version in the same transaction. Under
 * concurrent updates D1 runs the batches one after another, so versions never skip or repeat.
 */
export async function updateCanvas(
  svc: Services,
  actor: Actor,
  canvasId: string,
  input: UpdateInput,
) {
  if (input.renderer_id) requireRenderer(input.renderer_id)
  const now = svc.now()
  const sets = ['updated_at = ?']
  const params: unknown[] = [now]
  for (const field of ['title', 'visibility', 'renderer_id'] as const) {
    if (input[field] !== undefined) {
      sets.push(`${field} = ?`)
      params.push(input[field])
    }
  }
  let fileCondition = ''
  if (input.file_id) {
    sets.push('version = version + 1')
    fileCondition = `AND EXISTS (SELECT 1 FROM files f WHERE f.file_id = ? AND f.workspace_id = c.workspace_id
                                   AND f.status = 'ready')`
  }
  const update = svc.db
    .prepare(
      `UPDATE canvases AS c SET ${sets.join(', ')}
       WHERE c.canvas_id = ? AND c.workspace_id = ? AND ${LIVE} ${fileCondition}`,
    )
    .bind(...params, canvasId, actor.workspaceId, now, ...(input.file_id ? [input.file_id] : []))
  const statements = [update]
  if (input.file_id) {
    // OR IGNORE: when the UPDATE changed nothing, (canvas, current version) exists already.
    statements.push(
      svc.db
        .prepare(
          `INSERT OR IGNORE INTO versions (canvas_id, version, file_id, size, created_at)
           SELECT c.canvas_id, c.version, f.file_id, f.size, ?
           FROM canvases c JOIN files f ON f.file_id = ? AND f.workspace_id = c.workspace_id
                                         AND f.status = 'ready'
           WHERE c.canvas_id = ? AND c.workspace_id = ?`,
        )
        .bind(now, input.file_id, canvasId, actor.workspaceId),
    )
  }
  statements.push(selectLive(svc, actor, canvasId))
  const results = await svc.db.batch(statements)
  const row = (results[results.length - 1].results as CanvasRow[])[0]
  if (results[0].meta.changes !== 1 || !row) {
    if (!row) throw canvasNotFound()
    await explainMissingFile(svc, actor, input.file_id!)
  }
  return presentCanvas(row)
}

/**
 * Versions go with the canvas (ON DELETE CASCADE) in the same statement; its share links stay,
 * their canvas_id set to NULL (they answer canvas_not_found), until the sweep drops them.
 */
export async function deleteCanvas(svc: Services, actor: Actor, canvasId: string) {
  // RETURNING, not meta.changes: D1 counts the cascaded rows in `changes` too.
  const deleted = await svc.db
    .prepare(
      `DELETE FROM canvases AS c WHERE c.canvas_id = ? AND c.workspace_id = ? AND ${LIVE}
       RETURNING canvas_id`,
    )
    .bind(canvasId, actor.workspaceId, svc.now())
    .first()
  if (!deleted) throw canvasNotFound()
}

export async function makePermanent(svc: Services, actor: Actor, canvasId: string) {
  const now = svc.now()
  const [, selected] = await svc.db.batch([
    svc.db
      .prepare(
        `UPDATE canvases AS c SET expires_at = NULL, updated_at = ?
         WHERE c.canvas_id = ? AND c.workspace_id = ? AND c.expires_at > ?`,
      )
      .bind(now, canvasId, actor.workspaceId, now),
    selectLive(svc, actor, canvasId),
  ])
  const row = (selected.results as CanvasRow[])[0]
  if (!row) throw canvasNotFound()
  return presentCanvas(row)
}

export async function listVersions(svc: Services, actor: Actor, canvasId: string) {
  const { results } = await svc.db
    .prepare(
      `SELECT v.version, v.size, v.created_at, f.sha256
       FROM canvases c
       JOIN versions v ON v.canvas_id = c.canvas_id
       JOIN files f ON f.file_id = v.file_id
       WHERE c.canvas_id = ? AND c.workspace_id = ? AND ${LIVE}
       ORDER BY v.version DESC`,
    )
    .bind(canvasId, actor.workspaceId, svc.now())
    .all<{ version: number; size: number; created_at: number; sha256: string }>()
  // A live canvas always has at least one version, so none means no canvas.
  if (results.length === 0) throw canvasNotFound()
  return results.map((v) => ({ ...v, created_at: iso(v.created_at) }))
}

export type ContentRef = { blobKey: string; title: string; ext: string; version: number }

/** The stored object behind the latest version, or a given one. */
export async function findContent(
  svc: Services,
  actor: Actor,
  canvasId: string,
  version?: number,
): Promise<ContentRef> {
  const row = await svc.db
    .prepare(
      `SELECT c.title, c.ext, v.version, f.blob_key, c.version AS current
       FROM canvases c
       LEFT JOIN versions v ON v.canvas_id = c.canvas_id AND v.version = COALESCE(?, c.version)
       LEFT JOIN files f ON f.file_id = v.file_id
       WHERE c.canvas_id = ? AND c.workspace_id = ? AND ${LIVE}`,
    )
    .bind(version ?? null, canvasId, actor.workspaceId, svc.now())
    .first<{ title: string; ext: string; version: number | null; blob_key: string | null }>()
  if (!row) throw canvasNotFound()
  if (row.version === null || row.blob_key === null) {
    throw new AppError('version_not_found', `version: canvas has no version ${version}`)
  }
  return { blobKey: row.blob_key, title: row.title, ext: row.ext, version: row.version }
}

export function canvasNotFound() {
  return new AppError('canvas_not_found', 'canvas not found')
}

function selectLive(svc: Services, actor: Actor, canvasId: string) {
  return svc.db
    .prepare(`${SELECT_CANVAS} WHERE c.canvas_id = ? AND c.workspace_id = ? AND ${LIVE}`)
    .bind(canvasId, actor.workspaceId, svc.now())
}

function requireRenderer(rendererId: string) {
  if (!findRenderer(rendererId)) {
    throw new AppError(
      'invalid_request',
      `renderer_id: unknown renderer '${rendererId}'; see GET /v1/renderers`,
    )
  }
}

/** The renderer an extension maps to, or null to let the file's type decide (text or download). */
function findKnownRenderer(ext: string): string | null {
  const renderer = defaultRenderer(ext)
  return renderer.exts.includes(ext) ? renderer.renderer_id : null
}

async function explainMissingFile(svc: Services, actor: Actor, fileId: string): Promise<never> {
  const file = await svc.db
    .prepare('SELECT status FROM files WHERE file_id = ? AND workspace_id = ?')
    .bind(fileId, actor.workspaceId)
    .first<{ status: string }>()
  if (file?.status === 'pending') {
    throw new AppError('upload_incomplete', 'file_id: the upload has not been finalized')
  }
  throw new AppError('file_not_found', 'file_id: no such file')
}

/**
 * A canvas for the web viewer with its version list: the owner's workspace sees it always, anyone
 * else only when it is public. Null otherwise (the viewer answers 404 without saying why).
 */
export async function findViewable(svc: Services, canvasId: string, workspaceId: string | null) {
  const now = svc.now()
  const [canvas, versions] = await svc.db.batch([
    svc.db.prepare(`${SELECT_CANVAS} WHERE c.canvas_id = ? AND ${LIVE}`).bind(canvasId, now),
    svc.db
      .prepare(
        'SELECT version, size, created_at FROM versions WHERE canvas_id = ? ORDER BY version DESC',
      )
      .bind(canvasId),
  ])
  const row = (canvas.results as (CanvasRow & { workspace_id: string })[])[0]
  if (!row) return null
  const isOwner = row.workspace_id === workspaceId
  if (!isOwner && row.visibility !== 'public') return null
  return {
    canvas: presentCanvasDetail(row),
    versions: (versions.results as { version: number; size: number; created_at: number }[]).map(
      (v) => ({ ...v, created_at: iso(v.created_at) }),
    ),
    isOwner,
  }
}

export async function hasAnyUser(svc: Services): Promise<boolean> {
  return (await svc.db.prepare('SELECT 1 FROM users LIMIT 1').first()) !== null
}

/** The canvas with its current file, whoever owns it: for batching with the key lookup. */
export function canvasByIdStatement(svc: Services, canvasId: string): D1PreparedStatement {
  return svc.db
    .prepare(`${SELECT_CANVAS} WHERE c.canvas_id = ? AND ${LIVE}`)
    .bind(canvasId, svc.now())
}

/** Another workspace's canvas answers exactly like a missing one. */
export function ownedCanvasDetail(result: D1Result, actor: Actor) {
  const row = (result.results as (CanvasRow & { workspace_id: string })[])[0]
  if (!row || row.workspace_id !== actor.workspaceId) throw canvasNotFound()
  return presentCanvasDetail(row)
}

export type VersionContent = {
  title: string
  ext: string
  renderer_id: string
  size: number
  blob_key: string
}

/** What one version of a live canvas holds, whoever asks (the caller has authorized the read). */
export function findVersionContent(svc: Services, canvasId: string, version: number) {
  return svc.db
    .prepare(
      `SELECT c.title, c.ext, c.renderer_id, v.size, f.blob_key FROM canvases c
       JOIN versions v ON v.canvas_id = c.canvas_id AND v.version = ?
       JOIN files f ON f.file_id = v.file_id
       WHERE c.canvas_id = ? AND ${LIVE}`,
    )
    .bind(version, canvasId, svc.now())
    .first<VersionContent>()
}
