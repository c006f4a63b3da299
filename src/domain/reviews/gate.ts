import { eq, sql } from 'drizzle-orm'
import { AppError } from '../../lib/errors'
import { canvases, shareLinks, workspaces } from '../../storage/schema'
import type { Services } from '../services'

// What approval gates (docs/reviews.md): a link that follows approval, and every link and public
// page of a workspace that requires review, show the canvas's approved version and nothing before
// one. Expressions for the statements that read a link or a public canvas, so that the version
// shown is decided in their one round trip.

/** The canvas's workspace requires review (canvases in scope). */
export const reviewRequired = sql<boolean>`COALESCE((SELECT ${workspaces.requireReview} FROM ${workspaces} WHERE ${eq(workspaces.workspaceId, canvases.workspaceId)}), 0)`

/** The link shows approved versions only (share_links and canvases in scope). */
export const linkGated = sql<boolean>`(${shareLinks.followApproved} OR ${reviewRequired})`

/** The version a link shows: the approved one when gated, else its pinned one or the latest. */
export const linkShows = sql<
  number | null
>`CASE WHEN ${linkGated} THEN ${canvases.approvedVersion} ELSE COALESCE(${shareLinks.version}, ${canvases.version}) END`

/** The version a public canvas's page shows to anyone: the approved one when review is required. */
export const publicShows = sql<
  number | null
>`CASE WHEN ${reviewRequired} THEN ${canvases.approvedVersion} ELSE ${canvases.version} END`

export const notApproved = () =>
  new AppError(
    'not_approved',
    'this canvas awaits review: its readers see a version once one is approved',
  )

/**
 * The version anyone may see of a public canvas: its latest, or, when its workspace requires
 * review, its approved one (409 not_approved before any). Read only for a page's visitors.
 */
export async function publicVersion(
  svc: Services,
  canvas: { canvas_id: string; version: number; approved_version: number | null },
) {
  const row = await svc.db
    .select({ required: reviewRequired })
    .from(canvases)
    .where(eq(canvases.canvasId, canvas.canvas_id))
    .get()
  if (!row?.required) return canvas.version
  if (canvas.approved_version === null) throw notApproved()
  return canvas.approved_version
}
