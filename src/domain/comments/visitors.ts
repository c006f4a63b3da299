import type { CommentAnchor, CommentsQuery } from '../../schema/requests'
import { createComment, listComments, replyToComment } from './comments'
import { shareCommentPlace, type ShareAccess } from '../shares/public'
import type { Services } from '../services'

// What a share link's readers do with comments, through the public routes or the share page:
// read the canvas's comments, and add comments (on the version the link shows) and replies
// under the name they give. The link is checked first, as its other routes check it.

export async function visitorComments(svc: Services, access: ShareAccess, query: CommentsQuery) {
  const { place } = await shareCommentPlace(svc, access)
  return listComments(svc, place, query)
}

/** What a visitor posts, and the post's Idempotency-Key with its sender (when sent). */
type VisitorPost = { body: string; name: string; requestKey?: string }
export type VisitorComment = VisitorPost & { anchor?: CommentAnchor | null }

export async function visitorComment(svc: Services, access: ShareAccess, input: VisitorComment) {
  const { place, version } = await shareCommentPlace(svc, access)
  const { body, name, anchor, requestKey } = input
  const author = { name, kind: 'visitor' as const }
  return createComment(svc, place, author, { body, anchor, version, requestKey })
}

export async function visitorReply(
  svc: Services,
  access: ShareAccess,
  commentId: string,
  { body, name, requestKey }: VisitorPost,
) {
  const { place } = await shareCommentPlace(svc, access)
  return replyToComment(svc, place, { name, kind: 'visitor' }, commentId, body, requestKey)
}
