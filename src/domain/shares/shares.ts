import { and, desc, eq, exists, inArray, ne, notExists, sql, type SQL } from 'drizzle-orm'
import { AppError } from '../../lib/errors'
import { calendar, relative } from '../../lib/time'
import { canvasNotFound } from '../canvases/rows'
import { hashPassword, newToken } from '../../lib/crypto'
import type { Share as ShareJson } from '../../schema/responses'
import { one, value } from '../../storage/db'
import { canvases, revokedLinks, shareLinks, versions } from '../../storage/schema'
import { iso, isoOrNull, type Services } from '../services'
import { type Actor } from '../actor'
import { announceAudit, recordOf } from '../audit/record'
import { unexpiredCanvasId, unexpiredCanvasOf, selectUnexpiredCanvas } from '../canvases/unexpired'
import { reviewRequired } from '../reviews/gate'

// What a share answer shows: the link's own columns (its workspace is its canvas's).
export type Share = Omit<typeof shareLinks.$inferSelect, 'workspaceId'>

/**
 * When a link stops opening: its own expiry, or its canvas's while the canvas is temporary,
 * whichever comes first. Worked out when answered, so a canvas made permanent frees its links.
 */
export function linkExpiry(linkExpiresAt: number | null, canvasExpiresAt: number | null) {
  if (linkExpiresAt === null) return canvasExpiresAt
  return canvasExpiresAt === null ? linkExpiresAt : Math.min(linkExpiresAt, canvasExpiresAt)
}

/**
 * What a new link should say when its canvas ends it sooner than asked (a temporary canvas, a
 * link for longer or forever): when, and how to keep it. Null when the link lasts as asked.
 */
export function endsWithCanvas(share: ShareJson, expiresInSeconds?: number): string | null {
  if (share.expires_at === null) return null
  const asked = expiresInSeconds ? Date.parse(share.created_at) + expiresInSeconds * 1000 : Infinity
  if (Date.parse(share.expires_at) >= asked) return null
  const when = `${relative(share.expires_at)} (${calendar(share.expires_at)})`
  return `the canvas expires ${when} and the link with it: make the canvas permanent to keep the link`
}

/** The share object (docs/api.md); the password hash never leaves the server. */
export function presentShare(
  row: Share & { canvasId: string },
  canvasExpiresAt: number | null,
): ShareJson {
  return {
    token: row.token,
    canvas_id: row.canvasId,
    expires_at: isoOrNull(linkExpiry(row.expiresAt, canvasExpiresAt)),
    view_count: row.viewCount,
    max_views: row.maxViews,
    version: row.version,
    follow: row.followApproved ? 'approved' : row.version === null ? 'latest' : 'version',
    has_password: row.passwordHash !== null,
    allow_comments: row.allowComments,
    created_at: iso(row.createdAt),
  }
}

export type CreateShareInput = {
  expires_in?: number
  password?: string
  max_views?: number
  version?: number
  token?: string
  allow_comments?: boolean
  follow?: 'latest' | 'approved'
}

/**
 * One statement: the link is inserted only for an unexpired canvas of this workspace (and, when pinned,
 * an existing version of it), and only when the token is free.
 */
export async function createShare(
  svc: Services,
  actor: Actor,
  canvasId: string,
  input: CreateShareInput,
) {
  if (input.follow === 'approved' && input.version !== undefined) {
    throw new AppError('invalid_request', 'version: a link that follows approval pins no version')
  }
  const now = svc.now()
  const token = input.token ?? newToken()
  const passwordHash = input.password ? await hashPassword(input.password) : null
  const expiresAt = input.expires_in ? now + input.expires_in * 1000 : null
  const db = svc.db
  const version = input.version
  const [inserted, recorded, [canvas]] = await db.batch([
    db
      .insert(shareLinks)
      .select((qb) =>
        qb
          .select({
            token: value(shareLinks.token, token),
            canvasId: canvases.canvasId,
            version: value(shareLinks.version, version ?? null),
            passwordHash: value(shareLinks.passwordHash, passwordHash),
            maxViews: value(shareLinks.maxViews, input.max_views ?? null),
            viewCount: value(shareLinks.viewCount, 0),
            createdAt: value(shareLinks.createdAt, now),
            expiresAt: value(shareLinks.expiresAt, expiresAt),
            allowComments: value(shareLinks.allowComments, input.allow_comments ?? false),
            followApproved: value(shareLinks.followApproved, input.follow === 'approved'),
            workspaceId: canvases.workspaceId,
          })
          .from(canvases)
          .where(
            and(
              unexpiredCanvasOf(actor, canvasId, now),
              // A token another canvas's link had until it was revoked is kept from others while
              // it is remembered: its readers still try it, and their opens are that canvas's.
              notExists(
                db
                  .select(one)
                  .from(revokedLinks)
                  .where(
                    and(
                      eq(revokedLinks.token, token),
                      ne(revokedLinks.canvasId, canvases.canvasId),
                    ),
                  ),
              ),
              version === undefined
                ? undefined
                : exists(
                    db
                      .select(one)
                      .from(versions)
                      .where(
                        and(
                          eq(versions.canvasId, canvases.canvasId),
                          eq(versions.version, version),
                        ),
                      ),
                  ),
            ),
          ),
      )
      .onConflictDoNothing({ target: shareLinks.token })
      .returning(),
    // The token is the link's secret: the event names the canvas and what the link allows.
    recordOf(svc, actor, {
      action: 'share.created',
      target: { type: 'canvas', id: canvasId },
      details: {
        version: version ?? null,
        expires_at: expiresAt === null ? null : new Date(expiresAt).toISOString(),
        max_views: input.max_views ?? null,
        password: passwordHash !== null,
        allow_comments: input.allow_comments ?? false,
        follow: input.follow ?? 'latest',
      },
    }),
    db
      .select({ expiresAt: canvases.expiresAt })
      .from(canvases)
      .where(eq(canvases.canvasId, canvasId)),
    // The canvas's own token revoked and shared again: its opens are no longer refused ones.
    db.delete(revokedLinks).where(
      and(
        eq(revokedLinks.token, token),
        eq(revokedLinks.canvasId, canvasId),
        exists(
          db
            .select(one)
            .from(shareLinks)
            .where(and(eq(shareLinks.token, token), eq(shareLinks.canvasId, canvasId))),
        ),
      ),
    ),
  ])
  const row = inserted[0]
  // Inserted from this canvas's row, the link names it.
  if (row) {
    announceAudit(svc, recorded)
    return presentShare({ ...row, canvasId }, canvas.expiresAt)
  }
  await requireLiveCanvas(svc, actor, canvasId)
  if (version !== undefined) {
    const found = await db
      .select(one)
      .from(versions)
      .where(and(eq(versions.canvasId, canvasId), eq(versions.version, version)))
      .get()
    if (!found) {
      throw new AppError('version_not_found', `version: canvas has no version ${version}`)
    }
  }
  throw new AppError('share_token_taken', 'token: this share token is already in use')
}

export async function listShares(svc: Services, actor: Actor, canvasId: string) {
  return (await sharesOf(svc, actor, canvasId)).shares
}

/**
 * The canvas's links, and whether its workspace requires review (then every link shows the
 * approved version): one statement.
 */
export async function sharesOf(svc: Services, actor: Actor, canvasId: string) {
  // One row for an unexpired canvas without links, so that none means no canvas.
  const rows = await svc.db
    .select({
      canvasId: canvases.canvasId,
      requireReview: sql<number>`${reviewRequired}`,
      // Renamed: D1 hands rows over keyed by column name, and the link has an expires_at too.
      canvasExpiresAt: sql<number | null>`${canvases.expiresAt}`.as('canvas_expires_at'),
      share: {
        token: shareLinks.token,
        version: shareLinks.version,
        passwordHash: shareLinks.passwordHash,
        maxViews: shareLinks.maxViews,
        viewCount: shareLinks.viewCount,
        createdAt: shareLinks.createdAt,
        expiresAt: shareLinks.expiresAt,
        allowComments: shareLinks.allowComments,
        followApproved: shareLinks.followApproved,
      },
    })
    .from(canvases)
    .leftJoin(shareLinks, eq(shareLinks.canvasId, canvases.canvasId))
    .where(unexpiredCanvasOf(actor, canvasId, svc.now()))
    .orderBy(desc(shareLinks.createdAt), shareLinks.token)
  if (rows.length === 0) throw canvasNotFound()
  const shares = rows.flatMap((r) =>
    r.share ? [presentShare({ ...r.share, canvasId: r.canvasId }, r.canvasExpiresAt)] : [],
  )
  return { shares, requireReview: Boolean(rows[0].requireReview) }
}

/** How long a revoked link is remembered (docs/readership.md): then the sweep forgets it. */
export const REVOKED_REMEMBERED_MS = 30 * 86_400_000

/**
 * Remembers the links that `which` selects as revoked, before they are deleted: an open of one is
 * then counted as a refused open of its canvas (docs/readership.md) until the sweep forgets it.
 */
function rememberRevoked(svc: Services, which: SQL | undefined) {
  return svc.db
    .insert(revokedLinks)
    .select((qb) =>
      qb
        .select({
          token: shareLinks.token,
          canvasId: sql<string>`${shareLinks.canvasId}`.as('canvas_id'),
          revokedAt: value(revokedLinks.revokedAt, svc.now()),
        })
        .from(shareLinks)
        .where(which),
    )
    .onConflictDoUpdate({
      target: revokedLinks.token,
      set: { canvasId: sql`excluded.canvas_id`, revokedAt: sql`excluded.revoked_at` },
    })
}

export async function revokeShares(svc: Services, actor: Actor, canvasId: string) {
  const links = inArray(shareLinks.canvasId, unexpiredCanvasId(svc, actor, canvasId))
  const [canvas, , deleted, recorded] = await svc.db.batch([
    selectUnexpiredCanvas(svc, actor, canvasId),
    rememberRevoked(svc, links),
    svc.db.delete(shareLinks).where(links).returning({ token: shareLinks.token }),
    recordOf(svc, actor, {
      action: 'share.revoked',
      target: { type: 'canvas', id: canvasId },
      details: { links: sql<number>`changes()` },
    }),
  ])
  if (canvas.length === 0) throw canvasNotFound()
  if (deleted.length > 0) svc.live?.(canvasId, { type: 'gone', reason: 'revoked' }, 'share')
  announceAudit(svc, recorded)
  return deleted.length
}

export async function revokeShare(svc: Services, actor: Actor, canvasId: string, token: string) {
  const link = and(
    eq(shareLinks.token, token),
    inArray(shareLinks.canvasId, unexpiredCanvasId(svc, actor, canvasId)),
  )
  const [canvas, , deleted, recorded] = await svc.db.batch([
    selectUnexpiredCanvas(svc, actor, canvasId),
    rememberRevoked(svc, link),
    svc.db.delete(shareLinks).where(link).returning({ token: shareLinks.token }),
    recordOf(svc, actor, {
      action: 'share.revoked',
      target: { type: 'canvas', id: canvasId },
      details: { links: 1 },
    }),
  ])
  if (canvas.length === 0) throw canvasNotFound()
  if (deleted.length === 0) throw shareNotFound()
  announceAudit(svc, recorded)
  svc.live?.(canvasId, { type: 'gone', reason: 'revoked' }, `share:${token}`)
}

export function shareNotFound() {
  return new AppError('share_not_found', 'share link not found')
}

async function requireLiveCanvas(svc: Services, actor: Actor, canvasId: string) {
  if (!(await selectUnexpiredCanvas(svc, actor, canvasId).get())) throw canvasNotFound()
}
