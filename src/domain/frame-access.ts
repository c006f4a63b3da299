import { and, eq, exists, gt, isNotNull, isNull, or, sql, type SQL } from 'drizzle-orm'
import { alias } from 'drizzle-orm/sqlite-core'
import { AppError } from '../lib/errors'
import { one, type Database } from '../storage/db'
import { canvases, files, sessions, shareLinks, versionItems, versions } from '../storage/schema'
import {
  canvasNotFound,
  selectVersionContent,
  versionLook,
  type VersionContent,
} from './canvases/rows'
import type { Services } from './services'
import { itemAtPath } from './canvases/site-reads'
import { unexpired } from './canvases/unexpired'
import { linkGated, linkShows, publicShows, reviewRequired } from './reviews/gate'

// A content frame is reached through a signed URL, but the signature only says who the URL was
// issued to. The access it was issued under is checked again on every request, so withdrawing it
// (a link revoked or expired, a canvas made private or deleted, a session ended) ends the frame at
// once, not when the URL expires.

export type FrameGrant =
  /** The owner's web session, named by its public id. */
  | { kind: 'owner'; sessionId: string }
  /** Anyone, while the canvas is public. */
  | { kind: 'public' }
  /** A share link, while it is usable and serves this version. */
  | { kind: 'share'; token: string }

/** The grant as it travels in a frame URL (and is signed with it). */
export function encodeGrant(grant: FrameGrant): string {
  if (grant.kind === 'owner') return `o.${grant.sessionId}`
  if (grant.kind === 'share') return `s.${grant.token}`
  return 'p'
}

export function decodeGrant(value: string): FrameGrant | null {
  if (value === 'p') return { kind: 'public' }
  const match = /^([os])\.([A-Za-z0-9_-]{1,64})$/.exec(value)
  if (!match) return null
  return match[1] === 'o'
    ? { kind: 'owner', sessionId: match[2] }
    : { kind: 'share', token: match[2] }
}

// Each condition is what the grant needs to hold right now; all in the one statement.
// The content statements join the version served (`versions`): under a workspace that requires
// review, a public canvas serves its approved version only.
function condition(db: Database, grant: FrameGrant, now: number) {
  if (grant.kind === 'public') {
    return and(
      eq(canvases.visibility, 'public'),
      sql`(NOT ${reviewRequired} OR ${versions.version} = ${canvases.approvedVersion})`,
    )
  }
  if (grant.kind === 'owner') {
    return exists(
      db
        .select(one)
        .from(sessions)
        .where(
          and(
            eq(sessions.sessionId, grant.sessionId),
            eq(sessions.workspaceId, canvases.workspaceId),
            gt(sessions.expiresAt, now),
          ),
        ),
    )
  }
  // A link that follows the latest version serves any version it was shown with; a pinned one
  // only its own, one that follows approval only the approved one. Used up is not checked: the
  // view that used it up must still render, so such a link's frames live only a short window
  // instead (LIMITED_FRAME_SECONDS, web/frames/links.ts).
  return linkHolds(
    db,
    grant.token,
    now,
    sql`CASE WHEN ${linkGated} THEN ${versions.version} = ${canvases.approvedVersion} ELSE (${shareLinks.version} IS NULL OR ${shareLinks.version} = ${versions.version}) END`,
  )
}

/** The share link exists for this canvas and has not expired, and `also` holds of it. */
function linkHolds(db: Database, token: string, now: number, also: SQL | undefined) {
  return exists(
    db
      .select(one)
      .from(shareLinks)
      .where(linkUsable(token, now, also)),
  )
}

function linkUsable(token: string, now: number, also: SQL | undefined) {
  return and(
    eq(shareLinks.token, token),
    eq(shareLinks.canvasId, canvases.canvasId),
    or(isNull(shareLinks.expiresAt), gt(shareLinks.expiresAt, now)),
    also,
  )
}

/** What one version holds, if the grant still reaches it; otherwise the 404 of that access. */
export async function contentUnderGrant(
  svc: Services,
  grant: FrameGrant,
  canvasId: string,
  version: number,
): Promise<VersionContent> {
  const now = svc.now()
  const row = await selectVersionContent(svc.db, version)
    .where(and(eq(canvases.canvasId, canvasId), unexpired(now), condition(svc.db, grant, now)))
    .get()
  if (row) return versionLook(row)
  throw refusal(grant)
}

/** The 404 of an access that no longer reaches the content. */
function refusal(grant: FrameGrant) {
  if (grant.kind === 'share') {
    return new AppError(
      'share_not_found',
      'this share link was revoked, has expired, or no longer shows this content',
    )
  }
  return canvasNotFound()
}

export type LiveAccess = {
  /** The canvas's current version. */
  version: number
  /** When the canvas expires (milliseconds since the epoch); null for a permanent one. */
  canvasExpiresAt: number | null
  /** When the share link expires, for a socket opened under one; null otherwise or never. */
  linkExpiresAt: number | null
  /** Whoever holds the socket may read the canvas's comments: its owner, or a link allowing them. */
  comments: boolean
  /**
   * The version a link pinned to one shows: its socket hears of comments made on that version or
   * before, and of no new version. Null for a socket that follows the latest.
   */
  upTo: number | null
  /** The canvas's workspace. */
  workspaceId: string
  /** The person whose session the socket is opened under (an owner's page), else null. */
  userId: string | null
  /** It shows the approved version: it moves when one is approved, not when one is pushed. */
  gated: boolean
}

/**
 * What a live socket needs of its canvas, if the grant may follow it live: the owner's session or
 * a public canvas, or a share link without a view limit (a limited link's page is one counted
 * view of one version) that shows the latest version, or is pinned to one and allows comments
 * (its page hears of those). Null otherwise. The socket ends when the canvas or the link expires,
 * whichever is first.
 */
export async function liveUnderGrant(
  svc: Services,
  grant: FrameGrant,
  canvasId: string,
): Promise<LiveAccess | null> {
  const now = svc.now()
  const db = svc.db
  const canvas = and(eq(canvases.canvasId, canvasId), unexpired(now))
  if (grant.kind === 'share') {
    const hears = and(
      isNull(shareLinks.maxViews),
      or(isNull(shareLinks.version), eq(shareLinks.allowComments, true), linkGated),
      // Nothing to show yet: only a link that awaits an approval, whose page waits for it.
      or(isNotNull(linkShows), linkGated),
    )
    const row = await db
      .select({
        // 0 while a gated link awaits its first approval: its socket hears it as a new version.
        version: sql<number>`COALESCE(${linkShows}, 0)`,
        canvasExpiresAt: canvases.expiresAt,
        linkExpiresAt: shareLinks.expiresAt,
        comments: shareLinks.allowComments,
        pinned: shareLinks.version,
        gated: sql<number>`${linkGated}`,
        workspaceId: canvases.workspaceId,
      })
      .from(canvases)
      .innerJoin(shareLinks, linkUsable(grant.token, now, hears))
      .where(canvas)
      .get()
    if (!row) return null
    const { pinned, gated, ...access } = row
    // A pinned link's socket announces, and its frame route serves, its own version only; one
    // that follows approval the approved one, and it hears of comments up to that.
    const upTo = gated ? row.version : pinned
    return { ...access, upTo, gated: Boolean(gated), userId: null }
  }
  if (grant.kind === 'public') return publicLive(svc, canvasId)
  const owner = grant.kind === 'owner' ? grant.sessionId : null
  const row = await db
    .select({
      version: canvases.version,
      canvasExpiresAt: canvases.expiresAt,
      workspaceId: canvases.workspaceId,
      userId: sql<
        string | null
      >`(SELECT ${sessions.userId} FROM ${sessions} WHERE ${sessions.sessionId} = ${owner})`,
    })
    .from(canvases)
    .where(and(canvas, condition(db, grant, now)))
    .get()
  return row
    ? { ...row, linkExpiresAt: null, comments: grant.kind === 'owner', upTo: null, gated: false }
    : null
}

/** A public canvas's socket: it follows approval when its workspace requires review. */
async function publicLive(svc: Services, canvasId: string): Promise<LiveAccess | null> {
  const row = await svc.db
    .select({
      version: sql<number>`${publicShows}`,
      canvasExpiresAt: canvases.expiresAt,
      workspaceId: canvases.workspaceId,
      gated: sql<number>`${reviewRequired}`,
    })
    .from(canvases)
    .where(
      and(
        eq(canvases.canvasId, canvasId),
        unexpired(svc.now()),
        eq(canvases.visibility, 'public'),
        isNotNull(publicShows),
      ),
    )
    .get()
  if (!row) return null
  const gated = Boolean(row.gated)
  return {
    ...row,
    gated,
    upTo: gated ? row.version : null,
    linkExpiresAt: null,
    comments: false,
    userId: null,
  }
}

export type ItemUnderGrant = VersionContent & {
  /** The item at the path asked for; null when the version holds no such path. */
  item: { blob_key: string; size: number } | null
}

/**
 * One file of a site by path, if the grant still reaches its version: the same check as
 * contentUnderGrant, made for every file a site's page loads, in the same single statement.
 */
export async function itemUnderGrant(
  svc: Services,
  grant: FrameGrant,
  canvasId: string,
  version: number,
  path: string,
): Promise<ItemUnderGrant> {
  const now = svc.now()
  const db = svc.db
  const row = await db
    .select({
      title: canvases.title,
      ext: canvases.ext,
      renderer_id: canvases.rendererId,
      main_path: versions.mainPath,
      item_count: versions.itemCount,
      // The main file (for its renderer) and the item asked for, by names of their own.
      size: mainFiles.size,
      blob_key: mainFiles.blobKey,
      mime: mainFiles.mime,
      item_key: itemFiles.blobKey,
      item_size: itemFiles.size,
    })
    .from(canvases)
    .innerJoin(
      versions,
      and(eq(versions.canvasId, canvases.canvasId), eq(versions.version, version)),
    )
    .innerJoin(mainFiles, eq(mainFiles.fileId, versions.fileId))
    .leftJoin(versionItems, itemAtPath(path))
    .leftJoin(itemFiles, eq(itemFiles.fileId, versionItems.fileId))
    .where(and(eq(canvases.canvasId, canvasId), unexpired(now), condition(db, grant, now)))
    .get()
  if (!row) throw refusal(grant)
  const { item_key, item_size, ...content } = row
  return {
    ...versionLook(content),
    item: item_key === null || item_size === null ? null : { blob_key: item_key, size: item_size },
  }
}

const itemFiles = alias(files, 'item_files')
const mainFiles = alias(files, 'main_files')
