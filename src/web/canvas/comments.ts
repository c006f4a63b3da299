import { followedBy, page } from '../../http/actor/steps'
import { MEMBER, READ, WRITE } from '../../http/actor/need'
import { commentRoutes } from '../../http/comment-routes'
import { postKeyOf } from '../../http/idempotency'
import { checkedHeader, limitBySession } from '../session'

// The owner's page's comments: the API's comment routes (http/comment-routes.ts) for a web session
// instead of a key. JSON for the page's script, each write with the session's CSRF token in a
// header and from the session's budget, sent once however often it is posted (its
// Idempotency-Key); what a member writes is signed with the account's email. A viewer may
// comment; resolving, reopening and deleting change the review, an editor's.

export const ownerComments = commentRoutes({
  read: page(READ),
  write: followedBy(page(MEMBER), limitBySession, checkedHeader),
  moderate: followedBy(page(WRITE), limitBySession, checkedHeader),
  requestKey: (c) => postKeyOf(c, `user:${c.var.actor.userId}`),
  documented: false,
})
