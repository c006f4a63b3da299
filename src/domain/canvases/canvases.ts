import { and, eq, gt, inArray, isNotNull, sql, type SQL } from 'drizzle-orm'
import { AppError } from '../../lib/errors'
import { newId } from '../../lib/crypto'
import { chartOrJson, defaultRenderer, findRenderer } from '../../render/registry'
import { value, type Database } from '../../storage/db'
import { canvases, files, versionItems, versions } from '../../storage/schema'
import {
  canvasColumns,
  createdColumns,
  canvasNotFound,
  presentCanvas,
  selectUnexpired,
  type Visibility,
} from './rows'
import { eachItem, itemField, readyItems } from './item-list'
import { unexpiredCanvasOf } from './unexpired'
import { pathExt, planContent, type ContentInput, type ContentPlan } from './site-items'
import { iso, type Services } from '../services'
import { type Actor } from '../actor'
import { eventActor } from '../webhooks/events'
import { expiryFor } from '../workspaces/settings'
import { announceAudit, recordOf, type AuditRow } from '../audit/record'
import { dropEntry, indexVersion } from '../search/entries'
import { versionText } from '../search/text'

// Changing canvases: create, update (a new version), delete, make permanent. Each write carries
// its conditions in the statement itself, so a race can never leave half a canvas.

export type CreateInput = ContentInput & {
  title: string
  ext?: string
  renderer_id?: string
  permanent?: boolean
}

/**
 * Canvas, version 1 and its items are written in one transaction, each conditioned on every item
 * being a finalized file of this workspace, so no canvas ever exists without its content.
 */
export async function createCanvas(svc: Services, actor: Actor, input: CreateInput) {
  const rendererId = input.renderer_id ?? null
  if (rendererId) requireRenderer(rendererId)
  const plan = planContent(input, svc.settings.maxSiteItems)
  if (!plan) throw new AppError('invalid_request', 'file_id: a canvas needs file_id or items')
  const ext = createExt(input, plan)
  const list = plan.items.map((item) => ({
    path: item.path ?? `index.${ext}`,
    file_id: item.file_id,
  }))
  const main = plan.main ?? list[0].path
  const mainFile = list.find((item) => item.path === main)!.file_id
  const now = svc.now()
  const canvasId = newId()
  // Unless asked for, the workspace's default life (domain/workspaces/settings).
  const expiresAt = expiryFor(svc, actor.workspaceId, now, input.permanent)
  const db = svc.db
  const text = await versionText(svc, actor.workspaceId, { items: list, main: plan.main, ext })
  const ready = readyItems(db, list, actor.workspaceId).as('ready')
  // Each statement follows only the row the one before it inserted (`changes()`: the rows of the
  // statement just before, inside the batch's one transaction). Rows read, a single file: the
  // list's item and its file, then the canvas row; the answer comes back by RETURNING.
  const [inserted, , , recorded] = await db.batch([
    db
      .insert(canvases)
      .select((qb) =>
        qb
          .select({
            canvasId: value(canvases.canvasId, canvasId),
            workspaceId: value(canvases.workspaceId, actor.workspaceId),
            ownerUserId: value(canvases.ownerUserId, actor.userId),
            title: value(canvases.title, input.title),
            ext: value(canvases.ext, ext),
            rendererId: (rendererId !== null
              ? sql<string>`${rendererId}`
              : rendererFor(ext, mainFile, plan.main === null ? text : '')
            ).as('renderer_id'),
            visibility: value(canvases.visibility, 'private'),
            version: value(canvases.version, 1),
            createdAt: value(canvases.createdAt, now),
            updatedAt: value(canvases.updatedAt, now),
            expiresAt: sql<number | null>`${expiresAt}`.as('expires_at'),
            size: sql<number>`${ready.size}`.as('size'),
            commentCount: value(canvases.commentCount, 0),
            // Counted by the trigger of its first version (drizzle/0012_fourth_review.sql).
            versionCount: value(canvases.versionCount, 0),
            contentBytes: value(canvases.contentBytes, 0),
            approvedVersion: value(canvases.approvedVersion, null),
            reviewCount: value(canvases.reviewCount, 0),
            viewed: value(canvases.viewed, false),
          })
          .from(ready)
          .where(isNotNull(ready.size)),
      )
      .returning(createdColumns),
    db.insert(versions).select((qb) =>
      qb
        .select({
          canvasId: canvases.canvasId,
          version: value(versions.version, 1),
          fileId: value(versions.fileId, mainFile),
          size: canvases.size,
          createdAt: value(versions.createdAt, now),
          mainPath: value(versions.mainPath, main),
          itemCount: value(versions.itemCount, list.length),
          workspaceId: canvases.workspaceId,
        })
        .from(canvases)
        .where(and(eq(canvases.canvasId, canvasId), sql`changes() = 1`)),
    ),
    db.insert(versionItems).select((qb) =>
      qb
        .select({
          canvasId: value(versionItems.canvasId, canvasId),
          version: value(versionItems.version, 1),
          path: itemField('path').as('path'),
          fileId: itemField('file_id').as('file_id'),
        })
        .from(eachItem(list))
        .where(sql`changes() = 1`),
    ),
    recordOf(svc, actor, {
      action: 'canvas.created',
      target: { type: 'canvas', id: canvasId },
      details: { title: input.title, version: 1, items: list.length },
    }),
    indexVersion(db, canvasId, text, { now, mainFile }),
  ])
  const made = inserted[0]
  if (!made) await explainMissingFile(svc, actor, plan)
  const canvas = presentCanvas({ ...made, author_name: actor.person.name })
  announceVersion(svc, actor, canvas, mainFile, list.length, now)
  announceAudit(svc, recorded)
  return canvas
}

/**
 * Tells the workspace's webhooks of the version a write just made (docs/comments-and-webhooks.md).
 * Its digest (its main file's) is read by the queue's consumer, only when a webhook listens: the
 * write reads no row more for it.
 */
function announceVersion(
  svc: Services,
  actor: Actor,
  canvas: ReturnType<typeof presentCanvas>,
  mainFileId: string,
  items: number,
  now: number,
) {
  const version = { version: canvas.version, size: canvas.size, created_at: iso(now), items }
  svc.events?.({
    type: 'canvas.version_created',
    workspaceId: actor.workspaceId,
    data: { canvas, version },
    digestOf: mainFileId,
    ...eventActor(actor.by),
  })
}

/** A single file's ext is the request's; a site's comes from its main item's path. */
function createExt(input: CreateInput, plan: ContentPlan): string {
  if (plan.main === null) {
    if (input.ext === undefined) throw new AppError('invalid_request', 'ext: required with file_id')
    return input.ext
  }
  return agreedExt(input.ext, plan.main)
}

/**
 * The ext of a site's version: its main item's. A client may name it too (the specification makes
 * ext part of every create), as long as it agrees.
 */
function agreedExt(given: string | undefined, main: string): string {
  const ext = siteExt(main)
  if (given !== undefined && given !== ext) {
    throw new AppError(
      'invalid_request',
      `ext: '${given}' disagrees with the main item '${main}' (${ext}); leave ext out or send '${ext}'`,
    )
  }
  return ext
}

/** The main item's extension; `bin` for a main file without one (its type then picks text or not). */
const siteExt = (main: string) => pathExt(main) ?? 'bin'

export type UpdateInput = ContentInput & {
  ext?: string
  title?: string
  visibility?: Visibility
  renderer_id?: string
  /**
   * Only if the canvas is still at this version: a change made from what that version held
   * (an edit) is refused with `conflict` once another version has been made since.
   */
  ifVersion?: number
}

/**
 * New content bumps the version counter and inserts that version and its items in the same
 * transaction. Under concurrent updates D1 runs the batches one after another, so versions never
 * skip or repeat.
 */
export async function updateCanvas(
  svc: Services,
  actor: Actor,
  canvasId: string,
  input: UpdateInput,
) {
  if (input.renderer_id) requireRenderer(input.renderer_id)
  const plan = planContent(input, svc.settings.maxSiteItems)
  const now = svc.now()
  const db = svc.db
  const ext = updateExt(input, plan)
  const mainFile = plan?.items.find((item) => item.path === plan.main)?.file_id
  const text = plan ? await versionText(svc, actor.workspaceId, { ...plan, ext }) : ''
  // The size when every item is ready, else NULL. Written twice (SET and WHERE) it is read twice:
  // two rows a file, fewer than UPDATE ... FROM a derived table, which SQLite materializes.
  const size = plan
    ? sql<number | null>`(${readyItems(db, plan.items, actor.workspaceId)})`
    : undefined
  const update = db
    .update(canvases)
    .set({
      updatedAt: now,
      title: input.title,
      visibility: input.visibility,
      ext,
      // The renderer follows a change of ext, unless one is asked for; a JSON file's follows its
      // content too (a chart or not), unless it was given a renderer other than those two.
      rendererId:
        input.renderer_id ??
        (ext ? followedRenderer(ext, mainFile!, plan?.main === null ? text : '') : undefined),
      // Arithmetic on the column: the builder sets only values and SQL.
      version: plan ? sql`${canvases.version} + 1` : undefined,
      size,
    })
    .where(
      and(
        unexpiredCanvasOf(actor, canvasId, now),
        size ? isNotNull(size) : undefined,
        input.ifVersion === undefined ? undefined : eq(canvases.version, input.ifVersion),
      ),
    )
    .returning(canvasColumns)
  // Rows read, a single file: the canvas row, the item and its file, then the canvas row once more
  // and the new version row; the answer comes back by RETURNING.
  const records = updateRecords(svc, actor, canvasId, input, plan !== null)
  const [updated, ...rest] = await db.batch([
    update,
    ...(plan ? insertVersion(db, actor, canvasId, plan, now) : []),
    ...records,
    ...(plan ? [indexVersion(db, canvasId, text, { now, mainFile: mainFile! })] : []),
  ])
  const row = updated[0]
  if (!row) {
    // Why nothing changed, asked only then: no such canvas, or content that is not ready.
    const [exists] = await selectUnexpired(svc, actor, canvasId)
    if (!exists || !plan) throw canvasNotFound()
    if (input.ifVersion !== undefined && exists.version !== input.ifVersion) {
      throw new AppError(
        'conflict',
        `canvas: version ${exists.version} was made meanwhile, after version ${input.ifVersion} ` +
          'this change started from; try again',
      )
    }
    await explainMissingFile(svc, actor, plan)
  }
  if (plan) svc.live?.(canvasId, { type: 'version', version: row.version })
  if (input.visibility === 'private') {
    svc.live?.(canvasId, { type: 'gone', reason: 'private' }, 'public')
  }
  const canvas = presentCanvas(row)
  if (plan) announceVersion(svc, actor, canvas, mainFile!, plan.items.length, now)
  const from = plan ? 2 : 0
  announceAudit(svc, ...(rest.slice(from, from + records.length) as AuditRow[][]))
  return canvas
}

/**
 * The audit log's events of an update, in the update's batch: each follows the statement before
 * it (the update, the version's items, the event before), so none is written for an update that
 * changed nothing.
 */
function updateRecords(
  svc: Services,
  actor: Actor,
  canvasId: string,
  input: UpdateInput,
  content: boolean,
) {
  const target = { type: 'canvas', id: canvasId } as const
  const fields = (['title', 'renderer_id'] as const).filter((f) => input[f] !== undefined)
  const version = sql<number>`(SELECT ${canvases.version} FROM ${canvases} WHERE ${canvases.canvasId} = ${canvasId})`
  return [
    content &&
      recordOf(svc, actor, { action: 'canvas.version_created', target, details: { version } }),
    input.visibility !== undefined &&
      recordOf(svc, actor, {
        action: 'canvas.visibility_changed',
        target,
        details: { visibility: input.visibility },
      }),
    fields.length > 0 &&
      recordOf(svc, actor, { action: 'canvas.updated', target, details: { fields } }),
  ].filter((statement) => statement !== false)
}

/**
 * The canvas's ext after an update: a new version's own (a site's main item's, or the type a
 * single file was sent as); a single file sent without one keeps the canvas's. Undefined: as is.
 */
function updateExt(input: UpdateInput, plan: ContentPlan | null): string | undefined {
  if (!plan) {
    if (input.ext !== undefined) {
      throw new AppError('invalid_request', 'ext: only goes with new content (file_id or items)')
    }
    return undefined
  }
  return plan.main ? agreedExt(input.ext, plan.main) : input.ext
}

/**
 * The version the UPDATE just counted, and its items. Each follows only the row the statement
 * before it wrote (`changes()`: the rows of the statement just before, inside the batch's one
 * transaction): no version when the UPDATE changed nothing (and DO NOTHING should that version
 * exist), and items only into the version row just inserted, found by its rowid
 * (`last_insert_rowid()`), never into one that existed.
 */
function insertVersion(
  db: Database,
  actor: Actor,
  canvasId: string,
  plan: ContentPlan,
  now: number,
) {
  const list = plan.items
  const mainFile =
    plan.main === null ? list[0].file_id : list.find((i) => i.path === plan.main)!.file_id
  const version = db
    .insert(versions)
    .select((qb) =>
      qb
        .select({
          canvasId: canvases.canvasId,
          version: canvases.version,
          fileId: value(versions.fileId, mainFile),
          // Set by the UPDATE from the same list.
          size: canvases.size,
          createdAt: value(versions.createdAt, now),
          // A single file's path is `index.<ext>` of the canvas as it stands.
          mainPath: (plan.main === null
            ? sql<string>`'index.' || ${canvases.ext}`
            : sql<string>`${plan.main}`
          ).as('main_path'),
          itemCount: value(versions.itemCount, list.length),
          workspaceId: canvases.workspaceId,
        })
        .from(canvases)
        .where(
          and(
            sql`changes() = 1`,
            eq(canvases.canvasId, canvasId),
            eq(canvases.workspaceId, actor.workspaceId),
          ),
        ),
    )
    .onConflictDoNothing()
  const items = db.insert(versionItems).select((qb) =>
    qb
      .select({
        canvasId: versions.canvasId,
        version: versions.version,
        // A single file's one item sits at the version's main path.
        path: sql<string>`coalesce(${itemField('path')}, ${versions.mainPath})`.as('path'),
        fileId: itemField('file_id').as('file_id'),
      })
      .from(versions)
      .innerJoin(eachItem(list), sql`1`)
      .where(and(sql`changes() = 1`, sql`${versions}.rowid = last_insert_rowid()`)),
  )
  return [version, items] as const
}

/**
 * A deleted canvas expires now: from this instant every read answers canvas_not_found, as for any
 * expired canvas, and the sweep removes it with its versions (its share links stay, their
 * canvas_id set to NULL, answering canvas_not_found, until the sweep drops them). Removing the
 * rows here would read every version, item and link of the canvas (D1 bills rows read); marking
 * it reads one row, whatever the canvas holds. Its last change is that same instant: how the sweep
 * tells a deletion from an expiry, which it records.
 */
export async function deleteCanvas(svc: Services, actor: Actor, canvasId: string) {
  const now = svc.now()
  const [[deleted], recorded] = await svc.db.batch([
    svc.db
      .update(canvases)
      .set({ expiresAt: now, updatedAt: now })
      .where(unexpiredCanvasOf(actor, canvasId, now))
      .returning({ title: canvases.title }),
    recordOf(svc, actor, {
      action: 'canvas.deleted',
      target: { type: 'canvas', id: canvasId },
      details: { title: titleOf(canvasId) },
    }),
    dropEntry(svc.db, actor, canvasId),
  ])
  if (!deleted) throw canvasNotFound()
  announceAudit(svc, recorded)
  svc.live?.(canvasId, { type: 'gone', reason: 'deleted' })
  svc.events?.({
    type: 'canvas.deleted',
    workspaceId: actor.workspaceId,
    data: { canvas_id: canvasId },
    ...eventActor(actor.by),
  })
  return deleted
}

export async function makePermanent(svc: Services, actor: Actor, canvasId: string) {
  const now = svc.now()
  const [kept, recorded, selected] = await svc.db.batch([
    svc.db
      .update(canvases)
      .set({ expiresAt: null, updatedAt: now })
      .where(
        and(
          eq(canvases.canvasId, canvasId),
          eq(canvases.workspaceId, actor.workspaceId),
          gt(canvases.expiresAt, now),
        ),
      )
      .returning({ canvasId: canvases.canvasId }),
    recordOf(svc, actor, {
      action: 'canvas.made_permanent',
      target: { type: 'canvas', id: canvasId },
      details: { title: titleOf(canvasId) },
    }),
    selectUnexpired(svc, actor, canvasId),
  ])
  const row = selected[0]
  if (!row) throw canvasNotFound()
  // Its open pages' sockets were to close when it expired; now they close with their links only.
  if (kept.length > 0) svc.live?.(canvasId, { type: 'permanent' })
  announceAudit(svc, recorded)
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

/**
 * The renderer an extension maps to; a single JSON file's by its `text` (a chart or not: a site's
 * text is its pages', so it is given ''); for an extension no renderer claims, the main file's
 * type decides between text and download (CASE: the builder has no conditional expression).
 */
function rendererFor(ext: string, mainFile: string, text: string): SQL<string> {
  if (ext === 'json') return sql<string>`${chartOrJson(text)}`
  const renderer = defaultRenderer(ext)
  if (renderer.exts.includes(ext)) return sql<string>`${renderer.renderer_id}`
  const byType = sql`CASE WHEN ${files.mime} LIKE 'text/%' THEN 'text' ELSE 'download' END`
  return sql<string>`(SELECT ${byType} FROM ${files} WHERE ${files.fileId} = ${mainFile})`
}

/** A new version's renderer: the canvas's own while its ext stays (see updateCanvas). */
function followedRenderer(ext: string, mainFile: string, text: string): SQL<string> {
  const kept =
    ext === 'json'
      ? sql`${canvases.ext} = ${ext} AND ${canvases.rendererId} NOT IN ('json', 'vega')`
      : sql`${canvases.ext} = ${ext}`
  return sql<string>`CASE WHEN ${kept} THEN ${canvases.rendererId} ELSE ${rendererFor(ext, mainFile, text)} END`
}

/** Why the content named was refused: the first item whose file is missing or unfinished. */
async function explainMissingFile(svc: Services, actor: Actor, plan: ContentPlan): Promise<never> {
  const ids = [...new Set(plan.items.map((item) => item.file_id))]
  const found = await svc.db
    .select({ fileId: files.fileId, status: files.status })
    .from(files)
    .where(
      and(
        eq(files.workspaceId, actor.workspaceId),
        inArray(
          files.fileId,
          svc.db
            .select({ value: sql<string>`value`.as('value') })
            .from(sql`json_each(${JSON.stringify(ids)})`),
        ),
      ),
    )
  const status = new Map(found.map((f) => [f.fileId, f.status]))
  const index = plan.items.findIndex((item) => status.get(item.file_id) !== 'ready')
  const field = plan.main === null ? 'file_id' : `items.${Math.max(index, 0)}.file_id`
  if (status.get(plan.items[Math.max(index, 0)].file_id) === 'pending') {
    throw new AppError('upload_incomplete', `${field}: the upload has not been finalized`)
  }
  throw new AppError('file_not_found', `${field}: no such file`)
}

/** A canvas's title as a statement reads it (the audit log's details). */
const titleOf = (canvasId: string) =>
  sql<string>`(SELECT ${canvases.title} FROM ${canvases} WHERE ${canvases.canvasId} = ${canvasId})`
