import type { Comment } from '../../schema/responses'
import { iso, type Services } from '../services'
import { listComments, type CommentPlace } from './comments'

// An agent waiting for people's comments (docs/comments-and-webhooks.md): a long poll that
// answers as soon as a comment or reply lands, or with nothing at its timeout. The wait itself is
// the canvas's Durable Object's (live/canvas-live.ts): D1 is read when the wait starts and when it
// is woken, never polled.

/** A wake that finds nothing new (a resolve, a deletion) waits again, at most this many times. */
const MAX_WAKES = 20

/** The threads of the place with a comment or a reply made after `since` (milliseconds). */
async function commentsAfter(svc: Services, place: CommentPlace, since: number) {
  const all = await listComments(svc, place, { status: 'all' })
  const after = (at: string) => Date.parse(at) > since
  return all.filter(
    (c: Comment) => after(c.created_at) || c.replies.some((r) => after(r.created_at)),
  )
}

/**
 * The threads with something new after `since`, as soon as there are any, or none after
 * `timeoutMs`; with the time to wait from next (whatever landed after it is news next time).
 */
export async function waitForComments(
  svc: Services,
  place: CommentPlace,
  since: number,
  timeoutMs: number,
) {
  const deadline = svc.now() + timeoutMs
  for (let wakes = 0; ; wakes++) {
    const checkedAt = svc.now()
    const comments = await commentsAfter(svc, place, since)
    const left = deadline - svc.now()
    if (comments.length > 0 || left <= 0 || wakes === MAX_WAKES || !svc.waitForComment) {
      return { comments, since: iso(checkedAt) }
    }
    await svc.waitForComment(place.canvasId, checkedAt, left)
  }
}
