import { and, eq, gt, sql, type SQL } from 'drizzle-orm'
import { alias } from 'drizzle-orm/sqlite-core'
import { AppError } from '../../lib/errors'
import { defaultRenderer, findRenderer } from '../../render/registry'
import { pathExt } from './site-items'
import type { Canvas, CanvasDetail, Item } from '../../schema/responses'
import type { Bindable, Database } from '../../storage/db'
import { canvases, files, users, versionItems, versions } from '../../storage/schema'
import { unexpiredCanvasOf } from './unexpired'
import { iso, isoOrNull, type Services } from '../services'
import { type Actor } from '../actor'
import { personName } from '../person-name'

// The shapes every canvas query shares: the row of a canvas with its current version and file,
// how the API presents it, and the version content a frame or a download reads.

export type Visibility = (typeof canvases.$inferSelect)['visibility']

const currentVersion = and(
  eq(versions.canvasId, canvases.canvasId),
  eq(versions.version, canvases.version),
)

// Every read of a canvas joins its current version and file: one statement, one round trip.
/**
 * The columns of a canvas the API shows in a list, all in the canvas row (and in the list's
 * index). Named as the API names them: D1 keys a batch's rows by column name.
 */
export const canvasColumns = {
  canvas_id: canvases.canvasId,
  workspace_id: canvases.workspaceId,
  owner_user_id: canvases.ownerUserId,
  // Who published it, by the name their workspace knows them by: their person's row, one more
  // row read per canvas.
  author_name:
    sql<string>`(SELECT ${personName} FROM ${users} WHERE ${users.userId} = ${canvases.ownerUserId})`.as(
      'author_name',
    ),
  title: canvases.title,
  ext: canvases.ext,
  renderer_id: canvases.rendererId,
  visibility: canvases.visibility,
  version: canvases.version,
  created_at: canvases.createdAt,
  updated_at: canvases.updatedAt,
  expires_at: canvases.expiresAt,
  size: canvases.size,
  approved_version: canvases.approvedVersion,
}

/**
 * What a list shows of each canvas: the columns above but the workspace. D1 hands every cell of a
 * batch's result over as JSON, then as an object, and Drizzle maps it again: each column left out
 * of a page of 20 saves workerd CPU (scripts/bench/cpu.mjs).
 */
const { workspace_id: _workspace, ...listColumns } = canvasColumns
export { listColumns }

const canvasSelection = {
  ...canvasColumns,
  main_path: versions.mainPath,
  item_count: versions.itemCount,
  file_id: files.fileId,
  // Renamed: D1 keys a batch's rows by column name, and the canvas's is `size` too.
  file_size: sql<number>`${files.size}`.as('file_size'),
  sha256: files.sha256,
  mime: files.mime,
}

export function selectCanvas(db: Database) {
  return db
    .select(canvasSelection)
    .from(canvases)
    .innerJoin(versions, currentVersion)
    .innerJoin(files, eq(files.fileId, versions.fileId))
}

export type CanvasRow = Awaited<ReturnType<typeof selectCanvas>>[number]

const itemFiles = alias(files, 'item_files')

/**
 * `selectCanvas` with a site's items: a row per item of its current version, in path order, or
 * the canvas's one row (items null) for a single file. One statement where a second beside it
 * cost the hottest read an eighth of its throughput (a third statement in the key lookup's batch).
 */
export function selectCanvasWithItems<E extends Record<string, SQL.Aliased>>(
  db: Database,
  /** Columns more, for one caller's statement (computed in it: no round trip more). */
  extra: E = {} as E,
) {
  return db
    .select({
      ...canvasSelection,
      ...extra,
      // Renamed for the same reason as file_size.
      item_path: sql<string | null>`${versionItems.path}`.as('item_path'),
      item_file_id: sql<string | null>`${itemFiles.fileId}`.as('item_file_id'),
      item_sha256: sql<string | null>`${itemFiles.sha256}`.as('item_sha256'),
      item_size: sql<number | null>`${itemFiles.size}`.as('item_size'),
      item_mime: sql<string | null>`${itemFiles.mime}`.as('item_mime'),
    })
    .from(canvases)
    .innerJoin(versions, currentVersion)
    .innerJoin(files, eq(files.fileId, versions.fileId))
    .leftJoin(
      versionItems,
      and(
        gt(versions.itemCount, 1),
        eq(versionItems.canvasId, canvases.canvasId),
        eq(versionItems.version, versions.version),
      ),
    )
    .leftJoin(itemFiles, eq(itemFiles.fileId, versionItems.fileId))
}

export type CanvasItemRow = Awaited<ReturnType<typeof selectCanvasWithItems>>[number]

/** The items the rows of `selectCanvasWithItems` carry (none for a single file). */
export function itemsOf(rows: CanvasItemRow[]): Item[] {
  return rows.flatMap((r) =>
    r.item_path === null
      ? []
      : [
          {
            path: r.item_path,
            file_id: r.item_file_id!,
            sha256: r.item_sha256!,
            size: r.item_size!,
            mime: r.item_mime!,
          },
        ],
  )
}
/**
 * What a new canvas's insert returns: its columns but its author's name, which is the actor's
 * (the row of its person is not read again).
 */
const { author_name: _author, ...createdColumns } = canvasColumns
export { createdColumns }

/** A canvas row without its version and file: what a list and a write's RETURNING give. */
export type CanvasFields = { [K in keyof typeof listColumns]: CanvasRow[K] }

export function presentCanvas(row: CanvasFields): Canvas {
  return {
    canvas_id: row.canvas_id,
    owner_user_id: row.owner_user_id,
    author: { user_id: row.owner_user_id, name: row.author_name ?? row.owner_user_id },
    title: row.title,
    ext: row.ext,
    renderer_id: row.renderer_id,
    visibility: row.visibility,
    version: row.version,
    size: row.size,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    expires_at: isoOrNull(row.expires_at),
    approved_version: row.approved_version,
  }
}

/** The canvas with its current file; a site's also with its items (`items` of its version). */
export function presentCanvasDetail(row: CanvasRow, items: Item[] = []): CanvasDetail {
  const renderer = findRenderer(row.renderer_id)
  const detail: CanvasDetail = {
    ...presentCanvas(row),
    file: { file_id: row.file_id, sha256: row.sha256, size: row.file_size, mime: row.mime },
    renderer: { renderer_id: row.renderer_id, name: renderer?.name ?? row.renderer_id },
  }
  if (row.item_count > 1) Object.assign(detail, { items, main: row.main_path })
  return detail
}

/**
 * The person a filter names as a canvas's author, as a value of SQL: `me` (who `me` is: the
 * actor's id, or the key's person in a statement batched with its lookup), a user id, or an
 * email. Null when it names nobody, so the filter keeps nothing.
 */
export function authorOf(author: Bindable<string>, me: Bindable<string> | SQL) {
  const byId = sql`(SELECT ${users.userId} FROM ${users} WHERE ${users.userId} = ${author})`
  const byEmail = sql`(SELECT ${users.userId} FROM ${users} WHERE ${users.email} = lower(${author}))`
  return sql`COALESCE(CASE WHEN ${author} = 'me' THEN ${me} END, ${byId}, ${byEmail})`
}

export function canvasNotFound() {
  return new AppError('canvas_not_found', 'canvas not found')
}

export function selectUnexpired(svc: Services, actor: Actor, canvasId: string) {
  return selectCanvas(svc.db).where(unexpiredCanvasOf(actor, canvasId, svc.now()))
}

/** What one version of a canvas holds; the caller adds the conditions of its access. */
export function selectVersionContent(db: Database, version: Bindable<number>) {
  return db
    .select({
      title: canvases.title,
      ext: canvases.ext,
      renderer_id: canvases.rendererId,
      size: versions.size,
      blob_key: files.blobKey,
      mime: files.mime,
      main_path: versions.mainPath,
      item_count: versions.itemCount,
    })
    .from(canvases)
    .innerJoin(
      versions,
      and(eq(versions.canvasId, canvases.canvasId), eq(versions.version, version)),
    )
    .innerJoin(files, eq(files.fileId, versions.fileId))
}

export type VersionContent = Awaited<ReturnType<typeof selectVersionContent>>[number]

/**
 * A version's own ext and renderer. The canvas's follow its latest main file, so an older version
 * (a single .txt before a site, a site whose main was index.html before README.md) is shown by
 * the extension of its own main item's path; by the canvas's renderer when that is the canvas's
 * ext, else by the default renderer for it.
 */
export function versionLook<
  R extends { ext: string; renderer_id: string; main_path: string; mime: string },
>(row: R): R {
  const ext = pathExt(row.main_path) ?? 'bin'
  if (ext === row.ext) return row
  return { ...row, ext, renderer_id: defaultRenderer(ext, row.mime).renderer_id }
}
