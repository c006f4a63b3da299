import { and, eq, exists, gt, isNotNull, isNull, lt, or, sql } from 'drizzle-orm'
import { AppError, type ErrorCode } from '../../lib/errors'
import { verifyPassword } from '../../lib/crypto'
import type { Refusal } from '../../lib/views'
import type { PublicShare } from '../../schema/responses'
import { one, prepared, type Placeholders } from '../../storage/db'
import {
  canvases,
  files,
  shareLinks,
  versionItems,
  versions,
  workspaces,
} from '../../storage/schema'
import { itemAtPath, itemName, itemNotFound } from '../canvases/site-reads'
import { iso, isoOrNull, type Services } from '../services'
import { versionLook } from '../canvases/rows'
import { unexpired } from '../canvases/unexpired'
import { joinedLinkGated, joinedLinkShows, linkShows, NotApproved } from '../reviews/gate'
import { linkExpiry, presentShare, shareNotFound } from './shares'

export type ShareAccess = {
  token: string
  /**
   * Only a person's explicit request for the content (an API download, a click on the share page)
   * may use up a view of a link with a view limit; a page fetched by a link preview or a reload
   * may not. False: such a link is checked, not counted, and answered `counted: false`.
   */
  requested?: boolean
  /** Present when the link has a password; checked before the hash is computed. */
  password?: string
  /** Called before each password check, so attempts can be rate-limited. */
  beforePasswordCheck?: () => Promise<void>
  /**
   * The password was given on the share page a short while ago (its signed view cookie): the
   * page's own requests need not send it again.
   */
  passwordGiven?: boolean
}

/**
 * An open of a link refused for a reason its canvas's readership counts (docs/readership.md): the
 * canvas is known to the code that counts it, never told to the reader.
 */
export class LinkRefused extends AppError {
  constructor(
    code: ErrorCode,
    message: string,
    /** Null for a link whose canvas is gone. */
    readonly canvasId: string | null,
    readonly reason: Refusal,
  ) {
    super(code, message)
  }
}

const exhausted = (row: Resolved) =>
  new LinkRefused(
    'share_exhausted',
    'this share link has reached its view limit',
    row.canvas_id,
    'max_views',
  )

// The version a link shows: its pinned one, the latest, or the approved one (reviews/gate.ts).
const shown = linkShows

// The link, its canvas (when live) and the content it serves: pinned version or the latest, its
// main file or, by path, one file of a site. Columns of the canvas and version that share a name
// with the link's are renamed (SQL), since D1 hands a batch's rows over keyed by column name;
// through the outer joins any of them may be NULL.
const shareSelect = (byPath: boolean) =>
  prepared((db, p: Placeholders<{ token: string; path: string }>) => {
    const query = db
      .select({
        token: shareLinks.token,
        canvas_id: shareLinks.canvasId,
        version: shareLinks.version,
        password_hash: shareLinks.passwordHash,
        max_views: shareLinks.maxViews,
        view_count: shareLinks.viewCount,
        created_at: shareLinks.createdAt,
        expires_at: shareLinks.expiresAt,
        allow_comments: shareLinks.allowComments,
        follow_approved: shareLinks.followApproved,
        gated: sql<number | null>`${joinedLinkGated}`.as('gated'),
        title: canvases.title,
        ext: canvases.ext,
        renderer_id: canvases.rendererId,
        canvas_created_at: sql<number | null>`${canvases.createdAt}`.as('canvas_created_at'),
        workspace_id: canvases.workspaceId,
        canvas_expires_at: sql<number | null>`${canvases.expiresAt}`.as('canvas_expires_at'),
        content_version: sql<number | null>`${versions.version}`.as('content_version'),
        size: byPath ? files.size : versions.size,
        blob_key: files.blobKey,
        main_path: versions.mainPath,
        mime: files.mime,
      })
      .from(shareLinks)
      .leftJoin(canvases, eq(canvases.canvasId, shareLinks.canvasId))
      .leftJoin(workspaces, eq(workspaces.workspaceId, canvases.workspaceId))
      .leftJoin(
        versions,
        and(eq(versions.canvasId, canvases.canvasId), eq(versions.version, joinedLinkShows)),
      )
      .$dynamic()
    const withFile = byPath
      ? query
          .leftJoin(versionItems, itemAtPath(p('path')))
          .leftJoin(files, eq(files.fileId, versionItems.fileId))
      : query.leftJoin(files, eq(files.fileId, versions.fileId))
    return withFile.where(eq(shareLinks.token, p('token')))
  })
const selectShare = shareSelect(false)
const selectShareItem = shareSelect(true)

type Resolved = ReturnType<typeof selectShare>['_']['result'][number]

// A view counts only while the link is usable; the condition and the increment are one statement,
// so concurrent downloads can neither lose a count nor pass max_views. The increment is SQL: the
// builder sets only values. Two statements: one counts only a link without a password.
const countView = (onlyWithoutPassword: boolean, byPath: boolean, onlyUnlimited = false) =>
  prepared((db, p: Placeholders<{ token: string; now: number; path: string }>) =>
    db
      .update(shareLinks)
      .set({ viewCount: sql`${shareLinks.viewCount} + 1` })
      .where(
        and(
          eq(shareLinks.token, p('token')),
          or(isNull(shareLinks.expiresAt), gt(shareLinks.expiresAt, p('now'))),
          or(isNull(shareLinks.maxViews), lt(shareLinks.viewCount, shareLinks.maxViews)),
          exists(
            db
              .select(one)
              .from(canvases)
              .where(
                and(
                  eq(canvases.canvasId, shareLinks.canvasId),
                  unexpired(p('now')),
                  // Nothing approved yet, nothing shown: no view (by path, the item's version
                  // below is the one shown).
                  byPath ? undefined : isNotNull(shown),
                  // A path the version does not hold costs no view.
                  byPath
                    ? exists(
                        db
                          .select(one)
                          .from(versionItems)
                          .where(
                            and(
                              eq(versionItems.canvasId, canvases.canvasId),
                              eq(versionItems.version, shown),
                              eq(versionItems.path, p('path')),
                            ),
                          ),
                      )
                    : undefined,
                ),
              ),
          ),
          onlyWithoutPassword ? isNull(shareLinks.passwordHash) : undefined,
          onlyUnlimited ? isNull(shareLinks.maxViews) : undefined,
        ),
      )
      .returning({ viewCount: shareLinks.viewCount }),
  )
const counts = {
  open: [countView(true, false), countView(true, true)],
  any: [countView(false, false), countView(false, true)],
  unlimited: [countView(true, false, true), countView(true, true, true)],
  anyUnlimited: [countView(false, false, true), countView(false, true, true)],
}

/** Public metadata: never counts a view. */
export async function shareMetadata(svc: Services, access: ShareAccess) {
  const row = await selectShare(svc.db, { token: access.token, path: '' }).get()
  await admit(svc, row, access)
  return present(row!)
}

/**
 * The canvas whose comments a link's readers may read and add to, and the version it shows them;
 * never counts a view. The link must be usable (and its password given) before it says whether
 * it allows comments.
 */
export async function shareCommentPlace(svc: Services, access: ShareAccess) {
  const row = await selectShare(svc.db, { token: access.token, path: '' }).get()
  await admit(svc, row, access)
  if (!row!.allow_comments) {
    throw new AppError('comments_disabled', 'this share link does not allow comments')
  }
  // A gated link's readers see nothing of the versions after the approved one, comments neither.
  const pinned = row!.gated ? row!.content_version! : (row!.version ?? undefined)
  return {
    place: {
      workspaceId: row!.workspace_id!,
      canvasId: row!.canvas_id!,
      visitors: true,
      upTo: pinned,
    },
    version: row!.content_version!,
  }
}

/**
 * Opens the link for one content delivery and counts it. A link without a password is checked,
 * counted and read in one batched round trip; a protected one needs a second after the password.
 */
export async function openShareContent(svc: Services, access: ShareAccess, path?: string) {
  const db = svc.db
  const byPath = Number(path !== undefined)
  const select = byPath ? selectShareItem : selectShare
  const values = { token: access.token, now: svc.now(), path: path ?? '' }
  const requested = access.requested ?? true
  const first = requested ? counts.open : counts.unlimited
  const [counted, selected] = await db.batch([first[byPath](db, values), select(db, values)])
  let row = selected[0]
  let views = counted[0]?.viewCount
  if (counted.length === 0) {
    await admit(svc, row, access, path)
    if (!requested && row.max_views !== null) return described(row, path, false)
    const again = requested ? counts.any : counts.anyUnlimited
    const [recount, reselected] = await db.batch([
      again[byPath](db, { ...values, now: svc.now() }),
      select(db, values),
    ])
    row = reselected[0]
    // Someone else took the last view, or the link changed, between the two round trips.
    if (recount.length === 0) {
      checkUsable(svc, row, path)
      throw exhausted(row)
    }
    views = recount[0].viewCount
  }
  // The count is the statement's own: exactly one view is the one that uses the link up.
  if (row.max_views !== null && views === row.max_views) announceExhausted(svc, row)
  return described(row, path, true)
}

/** Tells the workspace's webhooks that a link with a view limit has just reached it. */
function announceExhausted(svc: Services, row: Resolved) {
  const share = presentShare(
    {
      token: row.token,
      canvasId: row.canvas_id!,
      version: row.version,
      passwordHash: row.password_hash,
      maxViews: row.max_views,
      viewCount: row.view_count,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      allowComments: row.allow_comments,
      followApproved: row.follow_approved,
    },
    row.canvas_expires_at,
  )
  svc.events?.({
    type: 'share.exhausted',
    workspaceId: row.workspace_id!,
    data: { canvas_id: row.canvas_id!, share },
    // Its last view used it up.
    actor: { kind: 'visitor', name: 'a reader of the link' },
  })
}

/**
 * A view counted a moment ago, shown again (a reload of the page it opened): checked as usable but
 * for the views it used, never counted, and without the password, which the caller has proof of.
 */
export async function reopenShareContent(svc: Services, token: string) {
  const row = await selectShare(svc.db, { token, path: '' }).get()
  // The view that used the link up still shows, as its frames do.
  checkUsable(svc, row && { ...row, max_views: null })
  approved(row!)
  return described(row!, undefined, false)
}

/** What a page or download needs of the link and the content it opened. */
function described(row: Resolved, path: string | undefined, counted: boolean) {
  return {
    counted,
    blobKey: row.blob_key!,
    ...(path === undefined ? { title: row.title!, ext: shownLook(row).ext } : itemName(path)),
    canvasId: row.canvas_id!,
    workspaceId: row.workspace_id!,
    version: row.content_version!,
    rendererId: shownLook(row).renderer_id,
    /** Its readers may read and add comments. */
    allowComments: Boolean(row.allow_comments),
    size: row.size!,
    protected: row.password_hash !== null,
    /** Has a view limit: what is shown under it must not outlive the view by much. */
    limited: row.max_views !== null,
    /** Views the link has left after this one; null without a limit. */
    viewsLeft: row.max_views === null ? null : Math.max(0, row.max_views - row.view_count),
    /** Shows the approved version (docs/reviews.md): its page moves when one is approved. */
    gated: Boolean(row.gated),
    /** Pinned to its version, rather than following the latest (or approval). */
    pinned: !row.gated && row.version !== null,
    expiresAt: isoOrNull(linkExpiry(row.expires_at, row.canvas_expires_at)),
  }
}

/** The checks of a public share route (docs/api.md), in order; returns only if the link is usable. */
async function admit(svc: Services, row: Resolved | undefined, access: ShareAccess, path?: string) {
  checkUsable(svc, row, path)
  // Only to whoever may open the link: which paths a site holds is not told to anyone else.
  const checkPath = () => {
    approved(row)
    if (row.blob_key === null) throw itemNotFound(path ?? '', row.content_version!)
  }
  if (row.password_hash === null || access.passwordGiven) return checkPath()
  if (access.password === undefined || access.password === '') {
    throw new AppError(
      'share_password_required',
      'this share link needs a password: X-Share-Password',
    )
  }
  await access.beforePasswordCheck?.()
  if (!(await verifyPassword(access.password, row.password_hash))) {
    throw new LinkRefused(
      'share_password_invalid',
      'wrong password for this share link',
      row.canvas_id,
      'wrong_password',
    )
  }
  checkPath()
}

const canvasNotFoundError = () => new AppError('canvas_not_found', 'canvas not found')

function checkUsable(
  svc: Services,
  row: Resolved | undefined,
  path?: string,
): asserts row is Resolved {
  const now = svc.now()
  if (!row) throw shareNotFound()
  if (row.expires_at !== null && row.expires_at <= now) {
    throw new LinkRefused('share_expired', 'this share link has expired', row.canvas_id, 'expired')
  }
  const canvasLive =
    row.title !== null && (row.canvas_expires_at === null || row.canvas_expires_at > now)
  if (!canvasLive) throw canvasNotFoundError()
  // A link that awaits an approval is said so after its password (approved, below).
  if (row.content_version === null && !row.gated) throw canvasNotFoundError()
  if (row.max_views !== null && row.view_count >= row.max_views) throw exhausted(row)
  if (path === undefined && row.blob_key === null && row.content_version !== null) {
    throw canvasNotFoundError()
  }
}

/** A link that shows the approved version shows nothing before one: 409 not_approved. */
function approved(row: Resolved) {
  if (row.content_version === null) throw new NotApproved(row.canvas_id!, row.max_views === null)
}

/** The ext and renderer of the version the link shows (a pinned one may predate the canvas's). */
const shownLook = (row: Resolved) =>
  versionLook({
    ext: row.ext!,
    renderer_id: row.renderer_id!,
    main_path: row.main_path!,
    mime: row.mime ?? '',
  })

function present(row: Resolved): PublicShare {
  const look = shownLook(row)
  return {
    canvas: {
      title: row.title!,
      ext: look.ext,
      renderer_id: look.renderer_id,
      version: row.content_version!,
      size: row.size!,
      created_at: iso(row.canvas_created_at!),
    },
    share: {
      expires_at: isoOrNull(linkExpiry(row.expires_at, row.canvas_expires_at)),
      view_count: row.view_count,
      has_password: row.password_hash !== null,
      allow_comments: row.allow_comments,
    },
  }
}
