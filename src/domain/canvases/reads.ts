import { and, asc, desc, eq, lt, sql } from 'drizzle-orm'
import { canvasCursor, readCanvasCursor, readVersionCursor, versionCursor } from '../cursors'
import { AppError } from '../../lib/errors'
import { one, prepared, type Placeholders } from '../../storage/db'
import type { CanvasList, VersionList } from '../../schema/responses'
import { canvases, files, users, versionItems, versions } from '../../storage/schema'
import {
  canvasNotFound,
  itemsOf,
  listColumns,
  presentCanvas,
  presentCanvasDetail,
  selectCanvasWithItems,
  selectVersionContent,
  type CanvasFields,
  type CanvasItemRow,
  type Visibility,
  authorOf,
  versionLook,
} from './rows'
import { keyPerson, keyWorkspace } from '../keys'
import { unexpired, unexpiredCanvasOf } from './unexpired'
import { reviewRequired } from '../reviews/gate'
import { iso, type Services } from '../services'
import { type Actor } from '../actor'

// Reading canvases: lists, versions, the content behind a version, and the web viewer's view.

export type ListQuery = {
  visibility?: Visibility
  ext?: string
  /** Who published them: `me`, a user id or an email (rows.ts `authorOf`). */
  author?: string
  limit: number
  offset: number
  /** A `next_cursor` of an earlier page (then `offset` is 0). */
  cursor?: string
}

export async function listCanvases(
  svc: Services,
  actor: Actor,
  query: ListQuery,
): Promise<CanvasList> {
  return listPage(await listStatement(svc, actor, query).all(), query)
}

/**
 * Whose canvases a list shows: a workspace's, or, for a statement batched with the key's lookup
 * before its workspace is known, those of the live API key with this hash.
 */
export type Lister = { workspaceId: string; userId?: string } | { keyHash: string }

/** One more row than a page, from `query`'s place on; `listPage` makes the page of them. */
export function listStatement(svc: Services, lister: Lister, query: ListQuery) {
  const after = query.cursor ? readCanvasCursor(query.cursor) : null
  const byKey = 'keyHash' in lister
  const variant =
    Number(!!query.author) * 16 +
    Number(byKey) * 8 +
    Number(!!after) * 4 +
    Number(!!query.visibility) * 2 +
    Number(!!query.ext)
  return listPages[variant](svc.db, {
    visibility: query.visibility,
    ext: query.ext,
    author: query.author ?? '',
    meId: byKey ? '' : (lister.userId ?? ''),
    // One more than asked: whether it comes back says whether there is a next page.
    limit: query.limit + 1,
    offset: after ? 0 : query.offset,
    afterAt: after?.createdAt ?? 0,
    afterId: after?.canvasId ?? '',
    workspaceId: byKey ? '' : lister.workspaceId,
    keyHash: byKey ? lister.keyHash : '',
    now: svc.now(),
  })
}

/** The page of what `listStatement` read, with the cursor of the next page when there is one. */
export function listPage(rows: CanvasFields[], query: ListQuery): CanvasList {
  const page = rows.slice(0, query.limit)
  const last = page.at(-1)
  return {
    canvases: page.map(presentCanvas),
    limit: query.limit,
    offset: query.cursor ? 0 : query.offset,
    next_cursor:
      rows.length > query.limit && last ? canvasCursor(last.created_at, last.canvas_id) : null,
  }
}

type ListValues = Omit<ListQuery, 'cursor' | 'author'> & {
  author: string
  meId: string
  workspaceId: string
  keyHash: string
  now: number
  afterAt: number
  afterId: string
}

// One statement per combination of the workspace's source (given, or the key's), of filters (none,
// ext, visibility, both) and of offset or cursor, each prepared once, on first use: a filter not
// given is left out of the SQL rather than written as "? IS NULL OR ...", which would keep SQLite
// from using the index for it.
const listPages = Array.from({ length: 32 }, (_, variant) =>
  prepared((db, p: Placeholders<ListValues>) => {
    const [byAuthor, byKey, byCursor, byVisibility, byExt] = [16, 8, 4, 2, 1].map(
      (bit) => (variant & bit) > 0,
    )
    const me = byKey ? keyPerson(db, p('keyHash')) : p('meId')
    // Every column shown is in canvases_workspace_created_idx: the page is read from the index
    // alone, entered at the cursor, one row read per canvas.
    return db
      .select(listColumns)
      .from(canvases)
      .where(
        and(
          eq(canvases.workspaceId, byKey ? keyWorkspace(db, p('keyHash')) : p('workspaceId')),
          unexpired(p('now')),
          byVisibility ? eq(canvases.visibility, p('visibility')) : undefined,
          byExt ? eq(canvases.ext, p('ext')) : undefined,
          byAuthor ? eq(canvases.ownerUserId, authorOf(p('author'), me)) : undefined,
          // Row values (the builder has none): the index is entered at the cursor.
          byCursor
            ? sql`(${canvases.createdAt}, ${canvases.canvasId}) < (${p('afterAt')}, ${p('afterId')})`
            : undefined,
        ),
      )
      .orderBy(desc(canvases.createdAt), desc(canvases.canvasId))
      .limit(p('limit'))
      .offset(p('offset'))
  }),
)

export type VersionsPage = { limit?: number; cursor?: string }

/** Newest first: every version, or with `limit` or `cursor` a page of them and `next_cursor`. */
export async function listVersions(
  svc: Services,
  actor: Actor,
  canvasId: string,
  page: VersionsPage = {},
): Promise<VersionList> {
  const paged = page.limit !== undefined || page.cursor !== undefined
  const before = page.cursor ? readVersionCursor(page.cursor) : null
  const limit = page.limit ?? 100
  // LEFT JOIN: a canvas whose page past the cursor is empty is still a canvas (one NULL row).
  const query = svc.db
    .select({
      version: versions.version,
      size: versions.size,
      created_at: versions.createdAt,
      sha256: files.sha256,
      items: versions.itemCount,
    })
    .from(canvases)
    .leftJoin(
      versions,
      and(
        eq(versions.canvasId, canvases.canvasId),
        before === null ? undefined : lt(versions.version, before),
      ),
    )
    .leftJoin(files, eq(files.fileId, versions.fileId))
    .where(unexpiredCanvasOf(actor, canvasId, svc.now()))
    .orderBy(desc(versions.version))
  const rows = paged ? await query.limit(limit + 1) : await query
  if (rows.length === 0) throw canvasNotFound()
  const found = rows
    .filter((v) => v.version !== null)
    .map((v) => ({
      version: v.version!,
      size: v.size!,
      created_at: iso(v.created_at!),
      sha256: v.sha256!,
      items: v.items!,
    }))
  if (!paged) return { versions: found }
  const shown = found.slice(0, limit)
  const next = found.length > limit ? versionCursor(shown.at(-1)!.version) : null
  return { versions: shown, next_cursor: next }
}

export type ContentRef = {
  blobKey: string
  title: string
  ext: string
  version: number
  /** The renderer of the version's main file (each version keeps its own). */
  rendererId?: string
}

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
    .where(unexpiredCanvasOf(actor, canvasId, svc.now()))
    .get()
  if (!row) throw canvasNotFound()
  if (row.version === null || row.blob_key === null) {
    throw new AppError('version_not_found', `version: canvas has no version ${version}`)
  }
  const look = versionLook({ ...row, main_path: row.main_path!, mime: row.mime! })
  const { ext, renderer_id: rendererId } = look
  return { blobKey: row.blob_key, title: row.title, ext, version: row.version, rendererId }
}

/**
 * A canvas for the web viewer with its version list: the owner's workspace sees it always, anyone
 * else only when it is public. Null otherwise (the viewer answers 404 without saying why).
 */
/** The most versions a page lists (newest first); any other opens by its number. */
export const LISTED_VERSIONS = 50

/**
 * A canvas as the web shows it: to its owner with its latest versions, to anyone else while it is
 * public (no versions read: the version list asks for the owner's workspace).
 */
export async function findViewable(svc: Services, canvasId: string, workspaceId: string | null) {
  const [canvas, list] = await svc.db.batch([
    pageCanvasById(svc.db, { canvasId, now: svc.now() }),
    versionList(svc.db, { canvasId, workspaceId: workspaceId ?? '' }),
  ])
  const row = canvas[0]
  if (!row) return null
  const isOwner = row.workspace_id === workspaceId
  if (!isOwner && row.visibility !== 'public') return null
  return {
    canvas: presentCanvasDetail(row, itemsOf(canvas)),
    versions: list.map((v) => ({ ...v, created_at: iso(v.created_at) })),
    isOwner,
    /** Its workspace shows visitors of a public canvas approved versions only (reviews/gate.ts). */
    reviewRequired: Boolean(row.review_required),
    /** Reviews were asked of it: its page lists them (none read otherwise). */
    reviewed: row.review_count > 0,
    /** People's reads of it were written (docs/readership.md): its page shows their week. */
    viewed: Boolean(row.viewed),
  }
}

// The canvas as a page shows it: with whether its workspace requires review, read in the same
// statement (a public page's visitors see its approved version then).
const pageCanvasById = prepared((db, p: Placeholders<{ canvasId: string; now: number }>) =>
  selectCanvasWithItems(db, {
    review_required: sql<number>`${reviewRequired}`.as('review_required'),
    review_count: sql<number>`${canvases.reviewCount}`.as('review_count'),
    viewed: sql<number>`${canvases.viewed}`.as('viewed'),
  })
    .where(and(eq(canvases.canvasId, p('canvasId')), unexpired(p('now'))))
    .orderBy(asc(versionItems.path)),
)

const versionList = prepared((db, p: Placeholders<{ canvasId: string; workspaceId: string }>) =>
  db
    .select({ version: versions.version, size: versions.size, created_at: versions.createdAt })
    .from(versions)
    .innerJoin(canvases, eq(canvases.canvasId, versions.canvasId))
    .where(and(eq(versions.canvasId, p('canvasId')), eq(canvases.workspaceId, p('workspaceId'))))
    .orderBy(desc(versions.version))
    .limit(LISTED_VERSIONS),
)

export async function hasAnyUser(svc: Services): Promise<boolean> {
  return (await svc.db.select(one).from(users).limit(1).get()) !== undefined
}

/**
 * The canvas with its current file (a site's items too), whoever owns it: for batching with the
 * key lookup.
 */
export function canvasByIdStatement(svc: Services, canvasId: string) {
  return canvasById(svc.db, { canvasId, now: svc.now() })
}

const canvasById = prepared((db, p: Placeholders<{ canvasId: string; now: number }>) =>
  selectCanvasWithItems(db)
    .where(and(eq(canvases.canvasId, p('canvasId')), unexpired(p('now'))))
    .orderBy(asc(versionItems.path)),
)

/** Another workspace's canvas answers exactly like a missing one. */
export function ownedCanvasDetail(rows: CanvasItemRow[], actor: Actor) {
  const row = rows[0]
  if (!row || row.workspace_id !== actor.workspaceId) throw canvasNotFound()
  return presentCanvasDetail(row, itemsOf(rows))
}

/** What one version of an unexpired canvas holds, whoever asks (the caller has authorized the read). */
export async function findVersionContent(svc: Services, canvasId: string, version: number) {
  const row = await versionContent(svc.db, { canvasId, version, now: svc.now() }).get()
  return row ? versionLook(row) : null
}

const versionContent = prepared(
  (db, p: Placeholders<{ canvasId: string; version: number; now: number }>) =>
    selectVersionContent(db, p('version')).where(
      and(eq(canvases.canvasId, p('canvasId')), unexpired(p('now'))),
    ),
)
