import { and, asc, eq, sql } from 'drizzle-orm'
import { AppError } from '../../lib/errors'
import type { Item, VersionItemList } from '../../schema/responses'
import type { Bindable } from '../../storage/db'
import { canvases, files, versionItems, versions } from '../../storage/schema'
import { canvasNotFound } from './rows'
import { unexpired, unexpiredCanvasOf } from './unexpired'
import { baseName, pathExt } from './site-items'
import type { Services } from '../services'
import type { Actor } from '../actor'

// Reading the files of a version: a site's list, one item by path, and what an archive holds.

/** The item at `path` of the version joined as `versions` (for a LEFT JOIN: null when absent). */
export function itemAtPath(path: Bindable<string>) {
  return and(
    eq(versionItems.canvasId, versions.canvasId),
    eq(versionItems.version, versions.version),
    eq(versionItems.path, path),
  )
}

/** The version asked for, or the canvas's current one. */
const versionOf = (version?: number) => (version === undefined ? canvases.version : sql`${version}`)

export type ItemRef = {
  blobKey: string
  /** The name it downloads under: the path's last segment. */
  title: string
  /** The path's extension, which picks its Content-Type; '' when it has none. */
  ext: string
  version: number
}

/** One item of the latest version, or of a given one, by path. */
export async function findItem(
  svc: Services,
  actor: Actor,
  canvasId: string,
  path: string,
  version?: number,
): Promise<ItemRef> {
  const row = await svc.db
    .select({
      version: versions.version,
      blob_key: files.blobKey,
    })
    .from(canvases)
    .leftJoin(
      versions,
      and(eq(versions.canvasId, canvases.canvasId), eq(versions.version, versionOf(version))),
    )
    .leftJoin(versionItems, itemAtPath(path))
    .leftJoin(files, eq(files.fileId, versionItems.fileId))
    .where(unexpiredCanvasOf(actor, canvasId, svc.now()))
    .get()
  if (!row) throw canvasNotFound()
  if (row.version === null) {
    throw new AppError('version_not_found', `version: canvas has no version ${version}`)
  }
  if (row.blob_key === null) throw itemNotFound(path, row.version)
  return { blobKey: row.blob_key, ...itemName(path), version: row.version }
}

export const itemName = (path: string) => ({ title: baseName(path), ext: pathExt(path) ?? '' })

export function itemNotFound(path: string, version: number) {
  return new AppError('not_found', `path: version ${version} has no file '${path}'`)
}

/**
 * Every file of one version (the latest when none is named) in path order, with the version's
 * main path, the canvas's title and the version's time: what a version's item list, its archive,
 * its web page and an edit are made of.
 * `actor` null: the caller has authorized the read (a web page of a canvas it may see).
 */
async function versionFiles(
  svc: Services,
  actor: Actor | null,
  canvasId: string,
  version?: number,
) {
  const now = svc.now()
  const rows = await svc.db
    .select({
      title: canvases.title,
      version: versions.version,
      created_at: versions.createdAt,
      main: versions.mainPath,
      path: versionItems.path,
      file_id: files.fileId,
      sha256: files.sha256,
      size: files.size,
      mime: files.mime,
      blob_key: files.blobKey,
    })
    .from(canvases)
    .leftJoin(
      versions,
      and(eq(versions.canvasId, canvases.canvasId), eq(versions.version, versionOf(version))),
    )
    .leftJoin(
      versionItems,
      and(eq(versionItems.canvasId, versions.canvasId), eq(versionItems.version, versions.version)),
    )
    .leftJoin(files, eq(files.fileId, versionItems.fileId))
    .where(
      actor
        ? unexpiredCanvasOf(actor, canvasId, now)
        : and(eq(canvases.canvasId, canvasId), unexpired(now)),
    )
    .orderBy(asc(versionItems.path))
  if (rows.length === 0) throw canvasNotFound()
  const first = rows[0]
  if (first.created_at === null) {
    throw new AppError('version_not_found', `version: canvas has no version ${version}`)
  }
  return {
    title: first.title,
    version: first.version!,
    createdAt: first.created_at,
    main: first.main!,
    files: rows.map((r) => ({
      path: r.path!,
      file_id: r.file_id!,
      sha256: r.sha256!,
      size: r.size!,
      mime: r.mime!,
      blobKey: r.blob_key!,
    })),
  }
}

/** Every file of one version, by path, with its main file's path: what a rollback sends again. */
export async function listVersionItems(
  svc: Services,
  actor: Actor,
  canvasId: string,
  version: number,
): Promise<VersionItemList> {
  const { main, files } = await versionFiles(svc, actor, canvasId, version)
  return { version, main, items: files.map(({ blobKey: _, ...item }) => item) }
}

/** Every file of the canvas's latest version, with its stored object: what an edit starts from. */
export async function latestVersionFiles(svc: Services, actor: Actor, canvasId: string) {
  const { version, main, files } = await versionFiles(svc, actor, canvasId)
  return { version, main, files }
}

export type ArchiveEntry = { path: string; blobKey: string; size: number }

/** Every item of one version, in path order, with what names the archive. */
export async function archiveEntries(
  svc: Services,
  actor: Actor | null,
  canvasId: string,
  version: number,
) {
  const { title, createdAt, files } = await versionFiles(svc, actor, canvasId, version)
  const entries: ArchiveEntry[] = files.map(({ path, blobKey, size }) => ({ path, blobKey, size }))
  return { title, createdAt, entries }
}

/**
 * A version's files for the web page, by path, with the main one's path; whoever asks (the caller
 * has authorized the read).
 */
export async function versionItemList(svc: Services, canvasId: string, version: number) {
  const { main, files } = await versionFiles(svc, null, canvasId, version)
  return { files: files.map(({ path, size }) => ({ path, size })), main }
}

export type { Item }
