import { and, eq, exists, or, sql, type SQL } from 'drizzle-orm'
import { one } from '../../storage/db'
import type { Services } from '../services'
import { AppError } from '../../lib/errors'
import { canvases, shareLinks, workspaces } from '../../storage/schema'

// What approval gates (docs/reviews.md): a link that follows approval, and every link and public
// page of a workspace that requires review, show the canvas's approved version and nothing before
// one. Expressions for the statements that read a link or a public canvas, so that the version
// shown is decided in their one round trip.

/** The canvas's workspace requires review (canvases in scope). */
export const reviewRequired = sql<boolean>`COALESCE((SELECT ${workspaces.requireReview} FROM ${workspaces} WHERE ${eq(workspaces.workspaceId, canvases.workspaceId)}), 0)`

/** The link shows approved versions only, its workspace's `required` given (share_links in scope). */
const gatedBy = (required: SQL) => sql<boolean>`(${shareLinks.followApproved} OR ${required})`

/** The version a link shows: the approved one when gated, else its pinned one or the latest. */
const showsBy = (required: SQL) =>
  sql<
    number | null
  >`CASE WHEN ${gatedBy(required)} THEN ${canvases.approvedVersion} ELSE COALESCE(${shareLinks.version}, ${canvases.version}) END`

/** Both, where share_links and canvases are in scope. */
export const linkGated = gatedBy(reviewRequired)
export const linkShows = showsBy(reviewRequired)

/**
 * Both, for a statement that joins the canvas's workspace (`workspaces`): its row is read once,
 * not once an expression.
 */
const joinedRequired = sql`COALESCE(${workspaces.requireReview}, 0)`
export const joinedLinkGated = gatedBy(joinedRequired)
export const joinedLinkShows = showsBy(joinedRequired)

/** The version a public canvas's page shows to anyone: the approved one when review is required. */
export const publicShows = sql<
  number | null
>`CASE WHEN ${reviewRequired} THEN ${canvases.approvedVersion} ELSE ${canvases.version} END`

/** 409 not_approved, naming the canvas for a page that waits live for its approval. */
export class NotApproved extends AppError {
  constructor(
    readonly canvasId: string,
    /** Its page may wait live (a link with a view limit has no live page). */
    readonly live = true,
  ) {
    super(
      'not_approved',
      'this canvas awaits review: its readers see a version once one is approved',
    )
  }
}

/**
 * The version anyone may see of a public canvas: its latest, or, when its workspace requires
 * review, its approved one (409 not_approved before any). `required` comes with the canvas's read.
 */
export function publicVersion(
  canvas: { canvas_id: string; version: number; approved_version: number | null },
  required: boolean,
) {
  if (!required) return canvas.version
  if (canvas.approved_version === null) throw new NotApproved(canvas.canvas_id)
  return canvas.approved_version
}

/**
 * Its workspace began or stopped requiring review: the open pages of its links and public
 * canvases reconnect, so that their sockets follow the setting (what version, which comments).
 */
export async function reconnectReaders(svc: Services, workspaceId: string) {
  if (!svc.live) return
  const rows = await svc.db
    .select({ canvasId: canvases.canvasId })
    .from(canvases)
    .where(
      and(
        eq(canvases.workspaceId, workspaceId),
        or(
          eq(canvases.visibility, 'public'),
          exists(
            svc.db.select(one).from(shareLinks).where(eq(shareLinks.canvasId, canvases.canvasId)),
          ),
        ),
      ),
    )
  for (const { canvasId } of rows) svc.live(canvasId, { type: 'reconnect' })
}
