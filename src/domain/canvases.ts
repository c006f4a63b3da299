import { and, eq, exists, gt, sql } from 'drizzle-orm'
import { AppError } from '../lib/errors'
import { newId } from '../lib/crypto'
import { defaultRenderer, findRenderer } from '../render/registry'
import { one, value } from '../storage/db'
import { canvases, files, versions } from '../storage/schema'
import {
  canvasNotFound,
  presentCanvas,
  selectCanvas,
  selectLive,
  type CanvasRow,
  type Visibility,
} from './canvas-rows'
import { liveCanvasOf } from './live'
import type { Actor, Services } from './services'

// Changing canvases: create, update (a new version), delete, make permanent. Each write carries
// its conditions in the statement itself, so a race can never leave half a canvas.

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
  const renderer = rendererId ?? known
  const db = svc.db
  const [, , selected] = await db.batch([
    db.insert(canvases).select((qb) =>
      qb
        .select({
          canvasId: value(canvases.canvasId, canvasId),
          workspaceId: value(canvases.workspaceId, actor.workspaceId),
          ownerUserId: value(canvases.ownerUserId, actor.userId),
          title: value(canvases.title, input.title),
          ext: value(canvases.ext, input.ext),
          // CASE: the builder has no conditional expression.
          rendererId:
            renderer !== null
              ? value(canvases.rendererId, renderer)
              : sql<string>`CASE WHEN ${files.mime} LIKE 'text/%' THEN 'text' ELSE 'download' END`.as(
                  'renderer_id',
                ),
          visibility: value(canvases.visibility, 'private'),
          version: value(canvases.version, 1),
          createdAt: value(canvases.createdAt, now),
          updatedAt: value(canvases.updatedAt, now),
          expiresAt: value(canvases.expiresAt, expiresAt),
        })
        .from(files)
        .where(
          and(
            eq(files.fileId, input.file_id),
            eq(files.workspaceId, actor.workspaceId),
            eq(files.status, 'ready'),
          ),
        ),
    ),
    db.insert(versions).select((qb) =>
      qb
        .select({
          canvasId: canvases.canvasId,
          version: value(versions.version, 1),
          fileId: files.fileId,
          size: files.size,
          createdAt: value(versions.createdAt, now),
        })
        .from(canvases)
        .innerJoin(
          files,
          and(eq(files.fileId, input.file_id), eq(files.workspaceId, canvases.workspaceId)),
        )
        .where(eq(canvases.canvasId, canvasId)),
    ),
    selectCanvas(db).where(eq(canvases.canvasId, canvasId)),
  ])
  const row = selected[0]
  if (!row) await explainMissingFile(svc, actor, input.file_id)
  return presentCanvas(row)
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
  const db = svc.db
  const fileId = input.file_id
  const fileReady = (id: string) =>
    and(
      eq(files.fileId, id),
      eq(files.workspaceId, canvases.workspaceId),
      eq(files.status, 'ready'),
    )
  const update = db
    .update(canvases)
    .set({
      updatedAt: now,
      title: input.title,
      visibility: input.visibility,
      rendererId: input.renderer_id,
      // Arithmetic on the column: the builder sets only values and SQL.
      version: fileId ? sql`${canvases.version} + 1` : undefined,
    })
    .where(
      and(
        liveCanvasOf(actor, canvasId, now),
        fileId ? exists(db.select(one).from(files).where(fileReady(fileId))) : undefined,
      ),
    )
  const select = selectLive(svc, actor, canvasId)
  let updated: D1Result
  let row: CanvasRow | undefined
  if (fileId) {
    // DO NOTHING: when the UPDATE changed nothing, (canvas, current version) exists already.
    const insert = db
      .insert(versions)
      .select((qb) =>
        qb
          .select({
            canvasId: canvases.canvasId,
            version: canvases.version,
            fileId: files.fileId,
            size: files.size,
            createdAt: value(versions.createdAt, now),
          })
          .from(canvases)
          .innerJoin(files, fileReady(fileId))
          .where(and(eq(canvases.canvasId, canvasId), eq(canvases.workspaceId, actor.workspaceId))),
      )
      .onConflictDoNothing()
    const [u, , selected] = await db.batch([update, insert, select])
    ;[updated, row] = [u, selected[0]]
  } else {
    const [u, selected] = await db.batch([update, select])
    ;[updated, row] = [u, selected[0]]
  }
  if (updated.meta.changes !== 1 || !row) {
    if (!row) throw canvasNotFound()
    await explainMissingFile(svc, actor, fileId!)
  }
  if (fileId) svc.live?.(canvasId, { type: 'version', version: row.version })
  if (input.visibility === 'private') {
    svc.live?.(canvasId, { type: 'gone', reason: 'private' }, 'public')
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
    .delete(canvases)
    .where(liveCanvasOf(actor, canvasId, svc.now()))
    .returning({ title: canvases.title })
    .get()
  if (!deleted) throw canvasNotFound()
  svc.live?.(canvasId, { type: 'gone', reason: 'deleted' })
  return deleted
}

export async function makePermanent(svc: Services, actor: Actor, canvasId: string) {
  const now = svc.now()
  const [, selected] = await svc.db.batch([
    svc.db
      .update(canvases)
      .set({ expiresAt: null, updatedAt: now })
      .where(
        and(
          eq(canvases.canvasId, canvasId),
          eq(canvases.workspaceId, actor.workspaceId),
          gt(canvases.expiresAt, now),
        ),
      ),
    selectLive(svc, actor, canvasId),
  ])
  const row = selected[0]
  if (!row) throw canvasNotFound()
  return presentCanvas(row)
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
    .select({ status: files.status })
    .from(files)
    .where(and(eq(files.fileId, fileId), eq(files.workspaceId, actor.workspaceId)))
    .get()
  if (file?.status === 'pending') {
    throw new AppError('upload_incomplete', 'file_id: the upload has not been finalized')
  }
  throw new AppError('file_not_found', 'file_id: no such file')
}
