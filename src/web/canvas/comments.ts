import { every } from 'hono/combine'
import { createMiddleware } from 'hono/factory'
import { access } from '../../http/access'
import type { SignedInEnv } from '../../http/context'
import { commentRoutes } from '../../http/comment-routes'
import { postKeyOf } from '../../http/idempotency'
import { sessionActor } from '../../domain/users'
import { requireRole } from '../../domain/workspaces/roles'
import { checkedHeader, limitBySession, signedIn } from '../session'

// The owner's page's comments: the API's comment routes (http/comment-routes.ts) for a web session
// instead of a key. JSON for the page's script, each write with the session's CSRF token in a
// header and from the session's budget, sent once however often it is posted (its
// Idempotency-Key); what a member writes is signed with the account's email.

const writing = [signedIn, limitBySession, checkedHeader] as const
// Resolving, reopening and deleting change the review: a viewer may comment, not moderate.
const mayModerate = createMiddleware<SignedInEnv>(async (c, next) => {
  requireRole(sessionActor(c.var.session), 'write')
  await next()
})

export const ownerComments = commentRoutes({
  read: signedIn,
  write: access('page', every(...writing)),
  moderate: access('page', every(...writing, mayModerate)),
  who: (c) => {
    // Let in by signedIn, the first step of every route here.
    const session = c.var.session!
    const actor = sessionActor(session)
    const { email: name, user_id: userId } = session.user
    return { actor, author: { name, kind: 'member', userId, by: actor.by } }
  },
  requestKey: (c) => postKeyOf(c, `user:${c.var.session!.user.user_id}`),
  documented: false,
})
