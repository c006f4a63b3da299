import type { Comment } from '../../schema/responses'
import { iso, type Services } from '../services'
import { AppError } from '../../lib/errors'
import { listComments, type CommentPlace } from './comments'

// An agent waiting for people's comments (docs/comments-and-webhooks.md): a long poll that
// answers as soon as a comment or reply lands, or with nothing at its timeout. The wait itself is
// the canvas's Durable Object's (live/canvas-live.ts): D1 is read when the wait starts and when it
// is woken, never polled.

/** A wake that finds nothing new (a resolve, a deletion) waits again, at most this many times. */
const MAX_WAKES = 20

/**
 * The threads of the place with a comment or a reply made after `since` (milliseconds), and the
 * newest time among everything read: where the next wait starts, taken from the data (a clock of
 * the waiter's own would skip a comment stamped before it and stored after the read).
 */
async function commentsAfter(svc: Services, place: CommentPlace, since: number) {
  const all = await listComments(svc, place, { status: 'all' })
  let newest = since
  const after = (at: string) => {
    const ms = Date.parse(at)
    newest = Math.max(newest, ms)
    return ms > since
  }
  const comments = all.filter((c: Comment) =>
    [after(c.created_at), ...c.replies.map((r) => after(r.created_at))].some(Boolean),
  )
  return { comments, newest }
}

/**
 * The threads with something new after `since`, as soon as there are any, or none after
 * `timeoutMs`; with the time to wait from next. `svc` should read D1's primary: the wait is woken
 * when a comment is stored, and a read replica may not have it yet. The wait is held under the
 * waiter's `tags` (http/actor/listen.ts): it ends (401) as soon as their credential does.
 */
export async function waitForComments(
  svc: Services,
  place: CommentPlace,
  since: number,
  timeoutMs: number,
  tags: string[],
) {
  const deadline = svc.now() + timeoutMs
  for (let wakes = 0; ; wakes++) {
    const checkedAt = svc.now()
    const { comments, newest } = await commentsAfter(svc, place, since)
    const left = deadline - svc.now()
    if (comments.length > 0 || left <= 0 || wakes === MAX_WAKES || !svc.waitForComment) {
      return { comments, since: iso(newest) }
    }
    const outcome = await svc.waitForComment(place.canvasId, checkedAt, left, tags)
    if (outcome === 'ended') throw accessEnded()
  }
}

/** The answer to a wait whose credential ended while it waited. */
export const accessEnded = () =>
  new AppError(
    'unauthorized',
    'your access ended while you waited (signed out, removed from the workspace, or the key or app revoked)',
  )
