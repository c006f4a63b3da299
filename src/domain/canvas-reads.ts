import { and, desc, eq, inArray } from 'drizzle-orm'
import { AppError } from '../lib/errors'
import { one, prepared, type Placeholders } from '../storage/db'
import type { CanvasList, Item, Version } from '../schema/responses'
import { currentSiteItems } from './site-reads'
import { canvases, files, users, versions } from '../storage/schema'
import {
  canvasNotFound,
  presentCanvas,
  presentCanvasDetail,
  selectCanvas,
  selectVersionContent,
  type CanvasRow,
  type Visibility,
  versionLook,
} from './canvas-rows'
import { live, liveCanvasOf } from './live'
import { iso, type Actor, type Services } from './services'

// Reading canvases: lists, versions, the content behind a version, and the web viewer's view.

export type ListQuery = { visibility?: Visibility; ext?: string; limit: number; offset: number }

export async function listCanvases(
  svc: Services,
  actor: Actor,
  query: ListQuery,
): Promise<CanvasList> {
  const statement = listPages[Number(!!query.visibility) * 2 + Number(!!query.ext)]
  const rows = await statement(svc.db, {
    ...query,
    workspaceId: actor.workspaceId,
    now: svc.now(),
  }).all()
  return { canvases: rows.map(presentCanvas), limit: query.limit, offset: query.offset }
}

type ListValues = ListQuery & { workspaceId: string; now: number }

// One statement per combination of filters (none, ext, visibility, both), each prepared once: a
// filter not given is left out of the SQL rather than written as "? IS NULL OR ...", which would
// keep SQLite from using the index for it.
const listPages = [false, true].flatMap((byVisibility) =>
  [false, true].map((byExt) =>
    prepared((db, p: Placeholders<ListValues>) => {
      const order = [desc(canvases.createdAt), desc(canvases.canvasId)]
      // The page's ids come from the covering index alone; only those rows are then joined, so a
      // deep OFFSET skips index entries, not joined rows.
      const page = db
        .select({ canvasId: canvases.canvasId })
        .from(canvases)
        .where(
          and(
            eq(canvases.workspaceId, p('workspaceId')),
            live(p('now')),
            byVisibility ? eq(canvases.visibility, p('visibility')) : undefined,
            byExt ? eq(canvases.ext, p('ext')) : undefined,
          ),
        )
        .orderBy(...order)
        .limit(p('limit'))
        .offset(p('offset'))
      return selectCanvas(db)
        .where(inArray(canvases.canvasId, page))
        .orderBy(...order)
    }),
  ),
)

export async function listVersions(
  svc: Services,
  actor: Actor,
  canvasId: string,
): Promise<Version[]> {
  const rows = await svc.db
    .select({
      version: versions.version,
      size: versions.size,
      created_at: versions.createdAt,
      sha256: files.sha256,
      items: versions.itemCount,
    })
    .from(canvases)
    .innerJoin(versions, eq(versions.canvasId, canvases.canvasId))
    .innerJoin(files, eq(files.fileId, versions.fileId))
    .where(liveCanvasOf(actor, canvasId, svc.now()))
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
      renderer_id: canvases.rendererId,
      version: versions.version,
      main_path: versions.mainPath,
      blob_key: files.blobKey,
      mime: files.mime,
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
    .where(liveCanvasOf(actor, canvasId, svc.now()))
    .get()
  if (!row) throw canvasNotFound()
  if (row.version === null || row.blob_key === null) {
    throw new AppError('version_not_found', `version: canvas has no version ${version}`)
  }
  const { ext } = versionLook({ ...row, main_path: row.main_path!, mime: row.mime! })
  return { blobKey: row.blob_key, title: row.title, ext, version: row.version }
}

/**
 * A canvas for the web viewer with its version list: the owner's workspace sees it always, anyone
 * else only when it is public. Null otherwise (the viewer answers 404 without saying why).
 */
export async function findViewable(svc: Services, canvasId: string, workspaceId: string | null) {
  const [canvas, list, items] = await svc.db.batch([
    canvasById(svc.db, { canvasId, now: svc.now() }),
    versionList(svc.db, { canvasId }),
    currentSiteItems(svc.db, { canvasId }),
  ])
  const row = canvas[0]
  if (!row) return null
  const isOwner = row.workspace_id === workspaceId
  if (!isOwner && row.visibility !== 'public') return null
  return {
    canvas: presentCanvasDetail(row, items),
    versions: list.map((v) => ({ ...v, created_at: iso(v.created_at) })),
    isOwner,
  }
}

const versionList = prepared((db, p: Placeholders<{ canvasId: string }>) =>
  db
    .select({ version: versions.version, size: versions.size, created_at: versions.createdAt })
    .from(versions)
    .where(eq(versions.canvasId, p('canvasId')))
    .orderBy(desc(versions.version)),
)

export async function hasAnyUser(svc: Services): Promise<boolean> {
  return (await svc.db.select(one).from(users).limit(1).get()) !== undefined
}

/** The canvas with its current file, whoever owns it: for batching with the key lookup. */
export function canvasByIdStatement(svc: Services, canvasId: string) {
  return canvasById(svc.db, { canvasId, now: svc.now() })
}

const canvasById = prepared((db, p: Placeholders<{ canvasId: string; now: number }>) =>
  selectCanvas(db).where(and(eq(canvases.canvasId, p('canvasId')), live(p('now')))),
)

/** Another workspace's canvas answers exactly like a missing one. */
export function ownedCanvasDetail(rows: CanvasRow[], actor: Actor, items: Item[] = []) {
  const row = rows[0]
  if (!row || row.workspace_id !== actor.workspaceId) throw canvasNotFound()
  return presentCanvasDetail(row, items)
}

/** What one version of a live canvas holds, whoever asks (the caller has authorized the read). */
export async function findVersionContent(svc: Services, canvasId: string, version: number) {
  const row = await versionContent(svc.db, { canvasId, version, now: svc.now() }).get()
  return row ? versionLook(row) : null
}

const versionContent = prepared(
  (db, p: Placeholders<{ canvasId: string; version: number; now: number }>) =>
    selectVersionContent(db, p('version')).where(
      and(eq(canvases.canvasId, p('canvasId')), live(p('now'))),
    ),
)
