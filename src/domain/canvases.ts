import { and, desc, eq, exists, gt, inArray, sql } from 'drizzle-orm'
import { AppError } from '../lib/errors'
import { defaultRenderer, findRenderer } from '../render/registry'
import { newId } from '../lib/crypto'
import { one, value, type Database } from '../storage/db'
import { canvases, files, users, versions } from '../storage/schema'
import { iso, isoOrNull, type Actor, type Services } from './services'
import { live } from './live'

export type Visibility = (typeof canvases.$inferSelect)['visibility']

// Every read of a canvas joins its current version and file: one statement, one round trip.
function selectCanvas(db: Database) {
  return db
    .select({
      canvas_id: canvases.canvasId,
      workspace_id: canvases.workspaceId,
      owner_user_id: canvases.ownerUserId,
      title: canvases.title,
      ext: canvases.ext,
      renderer_id: canvases.rendererId,
      visibility: canvases.visibility,
      version: canvases.version,
      created_at: canvases.createdAt,
      updated_at: canvases.updatedAt,
      expires_at: canvases.expiresAt,
      size: versions.size,
      file_id: files.fileId,
      sha256: files.sha256,
      mime: files.mime,
    })
    .from(canvases)
    .innerJoin(
      versions,
      and(eq(versions.canvasId, canvases.canvasId), eq(versions.version, canvases.version)),
    )
    .innerJoin(files, eq(files.fileId, versions.fileId))
}

type CanvasRow = Awaited<ReturnType<typeof selectCanvas>>[number]

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

export type ListQuery = { visibility?: Visibility; ext?: string; limit: number; offset: number }

export async function listCanvases(svc: Services, actor: Actor, query: ListQuery) {
  const order = [desc(canvases.createdAt), desc(canvases.canvasId)]
  // The page's ids come from the covering index alone; only those rows are then joined, so a deep
  // OFFSET skips index entries, not joined rows.
  const page = svc.db
    .select({ canvasId: canvases.canvasId })
    .from(canvases)
    .where(
      and(
        eq(canvases.workspaceId, actor.workspaceId),
        live(svc.now()),
        query.visibility ? eq(canvases.visibility, query.visibility) : undefined,
        query.ext ? eq(canvases.ext, query.ext) : undefined,
      ),
    )
    .orderBy(...order)
    .limit(query.limit)
    .offset(query.offset)
  const rows = await selectCanvas(svc.db)
    .where(inArray(canvases.canvasId, page))
    .orderBy(...order)
  return { canvases: rows.map(presentCanvas), limit: query.limit, offset: query.offset }
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
        eq(canvases.canvasId, canvasId),
        eq(canvases.workspaceId, actor.workspaceId),
        live(now),
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
    .where(
      and(
        eq(canvases.canvasId, canvasId),
        eq(canvases.workspaceId, actor.workspaceId),
        live(svc.now()),
      ),
    )
    .returning({ canvasId: canvases.canvasId })
    .get()
  if (!deleted) throw canvasNotFound()
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

export async function listVersions(svc: Services, actor: Actor, canvasId: string) {
  const rows = await svc.db
    .select({
      version: versions.version,
      size: versions.size,
      created_at: versions.createdAt,
      sha256: files.sha256,
    })
    .from(canvases)
    .innerJoin(versions, eq(versions.canvasId, canvases.canvasId))
    .innerJoin(files, eq(files.fileId, versions.fileId))
    .where(
      and(
        eq(canvases.canvasId, canvasId),
        eq(canvases.workspaceId, actor.workspaceId),
        live(svc.now()),
      ),
    )
    .orderBy(desc(versions.version))
  // A live canvas always has at least one version, so none means no canvas.
  if (rows.length === 0) throw canvasNotFound()
  return rows.map((v) => ({ ...v, created_at: iso(v.created_at) }))
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
    .select({
      title: canvases.title,
      ext: canvases.ext,
      version: versions.version,
      blob_key: files.blobKey,
    })
    .from(canvases)
    .leftJoin(
      versions,
      and(
        eq(versions.canvasId, canvases.canvasId),
        eq(versions.version, version ?? canvases.version),
      ),
    )
    .leftJoin(files, eq(files.fileId, versions.fileId))
    .where(
      and(
        eq(canvases.canvasId, canvasId),
        eq(canvases.workspaceId, actor.workspaceId),
        live(svc.now()),
      ),
    )
    .get()
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
  return selectCanvas(svc.db).where(
    and(
      eq(canvases.canvasId, canvasId),
      eq(canvases.workspaceId, actor.workspaceId),
      live(svc.now()),
    ),
  )
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

/**
 * A canvas for the web viewer with its version list: the owner's workspace sees it always, anyone
 * else only when it is public. Null otherwise (the viewer answers 404 without saying why).
 */
export async function findViewable(svc: Services, canvasId: string, workspaceId: string | null) {
  const now = svc.now()
  const [canvas, list] = await svc.db.batch([
    selectCanvas(svc.db).where(and(eq(canvases.canvasId, canvasId), live(now))),
    svc.db
      .select({ version: versions.version, size: versions.size, created_at: versions.createdAt })
      .from(versions)
      .where(eq(versions.canvasId, canvasId))
      .orderBy(desc(versions.version)),
  ])
  const row = canvas[0]
  if (!row) return null
  const isOwner = row.workspace_id === workspaceId
  if (!isOwner && row.visibility !== 'public') return null
  return {
    canvas: presentCanvasDetail(row),
    versions: list.map((v) => ({ ...v, created_at: iso(v.created_at) })),
    isOwner,
  }
}

export async function hasAnyUser(svc: Services): Promise<boolean> {
  return (await svc.db.select(one).from(users).limit(1).get()) !== undefined
}

/** The canvas with its current file, whoever owns it: for batching with the key lookup. */
export function canvasByIdStatement(svc: Services, canvasId: string) {
  return selectCanvas(svc.db).where(and(eq(canvases.canvasId, canvasId), live(svc.now())))
}

/** Another workspace's canvas answers exactly like a missing one. */
export function ownedCanvasDetail(rows: CanvasRow[], actor: Actor) {
  const row = rows[0]
  if (!row || row.workspace_id !== actor.workspaceId) throw canvasNotFound()
  return presentCanvasDetail(row)
}

/** What one version of a canvas holds; the caller adds the conditions of its access. */
export function selectVersionContent(db: Database, version: number) {
  return db
    .select({
      title: canvases.title,
      ext: canvases.ext,
      renderer_id: canvases.rendererId,
      size: versions.size,
      blob_key: files.blobKey,
    })
    .from(canvases)
    .innerJoin(
      versions,
      and(eq(versions.canvasId, canvases.canvasId), eq(versions.version, version)),
    )
    .innerJoin(files, eq(files.fileId, versions.fileId))
}

export type VersionContent = Awaited<ReturnType<typeof selectVersionContent>>[number]

/** What one version of a live canvas holds, whoever asks (the caller has authorized the read). */
export async function findVersionContent(svc: Services, canvasId: string, version: number) {
  const row = await selectVersionContent(svc.db, version)
    .where(and(eq(canvases.canvasId, canvasId), live(svc.now())))
    .get()
  return row ?? null
}
