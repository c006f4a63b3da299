import { and, desc, eq, notExists, or, sql } from 'drizzle-orm'
import { one } from '../../storage/db'
import { canvases, reviewDecisions, reviews } from '../../storage/schema'
import type { Actor } from '../actor'
import { unexpired } from '../canvases/unexpired'
import type { Services } from '../services'
import { allows } from '../workspaces/roles'

// Who a review waits on: the rule of who may decide it, and the reviews that wait for a person.

/**
 * Why the actor may not decide a review asked by `requestedBy` of the `named` reviewers, or null
 * when they may: never the one who asked, nobody unnamed, no viewer when none is named.
 */
export function decisionRefusal(
  actor: Pick<Actor, 'userId' | 'role'>,
  requestedBy: string,
  named: string[],
): string | null {
  if (requestedBy === actor.userId) return 'you asked for this review: another member decides it'
  if (named.length > 0 && !named.includes(actor.userId)) {
    return 'this review asks named reviewers, and you are not one of them'
  }
  if (named.length === 0 && !allows(actor.role, 'write')) {
    return `deciding a review that names no one needs the editor role; yours in this workspace is ${actor.role}`
  }
  return null
}

/**
 * The pending reviews of the actor's workspace that wait for the actor's decision, by canvas:
 * those naming them that they have not decided, and, for an editor, those naming no one.
 */
export async function reviewsAwaiting(svc: Services, actor: Actor) {
  const me = actor.userId
  const rows = await svc.db
    .select({
      canvasId: reviews.canvasId,
      reviewId: reviews.reviewId,
      version: reviews.version,
      title: canvases.title,
    })
    .from(reviews)
    .innerJoin(canvases, eq(canvases.canvasId, reviews.canvasId))
    .where(
      and(
        eq(reviews.workspaceId, actor.workspaceId),
        unexpired(svc.now()),
        eq(reviews.state, 'pending'),
        sql`${reviews.requestedBy} <> ${me}`,
        or(
          and(
            sql`EXISTS (SELECT 1 FROM json_each(${reviews.reviewers}) WHERE value = ${me})`,
            notExists(
              svc.db
                .select(one)
                .from(reviewDecisions)
                .where(
                  and(
                    eq(reviewDecisions.reviewId, reviews.reviewId),
                    eq(reviewDecisions.userId, me),
                  ),
                ),
            ),
          ),
          allows(actor.role, 'write') ? sql`${reviews.reviewers} = '[]'` : undefined,
        ),
      ),
    )
    .orderBy(desc(reviews.createdAt))
    .limit(200)
  // Newest first: a canvas's newest pending review is the one named.
  const awaiting = new Map<string, (typeof rows)[number]>()
  for (const row of rows) if (!awaiting.has(row.canvasId)) awaiting.set(row.canvasId, row)
  return awaiting
}
