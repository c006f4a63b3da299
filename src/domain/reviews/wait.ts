import type { Actor } from '../actor'
import { accessEnded } from '../comments/wait'
import type { Services } from '../services'
import { getReview, type Review } from './reviews'

// An agent waiting for people's decision on a review (docs/reviews.md): a long poll that answers
// as soon as the review is decided, or as it stands at its timeout. The wait is the canvas's
// Durable Object's, as a wait for comments is: a decision wakes it, D1 is read then, never polled.

/** A wake that finds the review still pending (a comment, one reviewer of several) waits again. */
const MAX_WAKES = 20

/**
 * The review once it is no longer pending (at once if it is decided already), or as it stands
 * after `timeoutMs`. `svc` should read D1's primary; `listen` records the wait under the actor's
 * credential and answers the tags it is held under (it ends, 401, when the credential does).
 */
export async function waitForReview(
  svc: Services,
  actor: Actor,
  reviewId: string,
  timeoutMs: number,
  listen: (canvasId: string) => Promise<string[]>,
): Promise<Review> {
  const deadline = svc.now() + timeoutMs
  let tags: string[] | undefined
  for (let wakes = 0; ; wakes++) {
    const checkedAt = svc.now()
    const review = await getReview(svc, actor, reviewId)
    const left = deadline - svc.now()
    if (review.state !== 'pending' || left <= 0 || wakes === MAX_WAKES || !svc.waitForComment) {
      return review
    }
    tags ??= await listen(review.canvas_id)
    const outcome = await svc.waitForComment(review.canvas_id, checkedAt, left, tags)
    if (outcome === 'ended') throw accessEnded()
  }
}
