import { Hono } from 'hono'
import { createMiddleware } from 'hono/factory'
import type { SignedInEnv } from '../../http/context'
import { postKeyOf } from '../../http/idempotency'
import { jsonBody, params, query } from '../../http/validate'
import {
  createComment,
  deleteComment,
  deleteReply,
  listComments,
  replyToComment,
  setCommentStatus,
  type CommentPlace,
} from '../../domain/comments/comments'
import { sessionActor, type SessionInfo } from '../../domain/users'
import {
  canvasInPath,
  commentInPath,
  commentsQuery,
  createCommentBody,
  replyBody,
  replyInPath,
} from '../../schema/requests'
import { checkedHeader, limitBySession, signedIn } from '../session'
import { requireRole } from '../../domain/workspaces/roles'

// The owner's page's comments: the API's comment routes for a web session instead of a key. JSON
// for the page's script, each write with the session's CSRF token in a header and from the
// session's budget; what the owner writes is signed with the account's email.
export const ownerComments = new Hono<SignedInEnv>()

const place = (session: SessionInfo, canvasId: string): CommentPlace => ({
  workspaceId: session.workspace.workspace_id,
  canvasId,
})
const byOwner = (session: SessionInfo) => ({
  name: session.user.email,
  kind: 'member' as const,
  userId: session.user.user_id,
  by: sessionActor(session).by,
})
const writing = [signedIn, limitBySession, checkedHeader] as const
// Resolving, reopening and deleting change the review: a viewer may comment, not moderate.
const moderating = [
  ...writing,
  createMiddleware<SignedInEnv>(async (c, next) => {
    requireRole(sessionActor(c.var.session), 'write')
    await next()
  }),
] as const

ownerComments.get(
  '/:id/comments',
  signedIn,
  params(canvasInPath),
  query(commentsQuery),
  async (c) => {
    const where = place(c.var.session, c.req.valid('param').id)
    c.header('Cache-Control', 'no-store')
    return c.json({ comments: await listComments(c.var.svc, where, c.req.valid('query')) })
  },
)

ownerComments.post(
  '/:id/comments',
  ...writing,
  params(canvasInPath),
  jsonBody(createCommentBody),
  async (c) => {
    const { svc, session } = c.var
    const where = place(session, c.req.valid('param').id)
    const requestKey = await postKeyOf(c, `user:${session.user.user_id}`)
    const input = { ...c.req.valid('json'), requestKey }
    return c.json(await createComment(svc, where, byOwner(session), input), 201)
  },
)

ownerComments.post(
  '/:id/comments/:comment_id/replies',
  ...writing,
  params(commentInPath),
  jsonBody(replyBody),
  async (c) => {
    const { svc, session } = c.var
    const { id, comment_id: commentId } = c.req.valid('param')
    const { body } = c.req.valid('json')
    const requestKey = await postKeyOf(c, `user:${session.user.user_id}`)
    const author = byOwner(session)
    return c.json(
      await replyToComment(svc, place(session, id), author, commentId, body, requestKey),
      201,
    )
  },
)

ownerComments.post(
  '/:id/comments/:comment_id/:action{resolve|reopen}',
  ...moderating,
  params(commentInPath),
  async (c) => {
    const { id, comment_id: commentId } = c.req.valid('param')
    const status = c.req.param('action') === 'resolve' ? 'resolved' : 'open'
    const { svc, session } = c.var
    const by = sessionActor(session).by
    return c.json(await setCommentStatus(svc, place(session, id), commentId, status, by))
  },
)

ownerComments.delete(
  '/:id/comments/:comment_id',
  ...moderating,
  params(commentInPath),
  async (c) => {
    const { id, comment_id: commentId } = c.req.valid('param')
    await deleteComment(c.var.svc, place(c.var.session, id), commentId, sessionActor(c.var.session))
    return c.json({ success: true })
  },
)

ownerComments.delete(
  '/:id/comments/:comment_id/replies/:reply_id',
  ...moderating,
  params(replyInPath),
  async (c) => {
    const { id, comment_id: commentId, reply_id: replyId } = c.req.valid('param')
    await deleteReply(
      c.var.svc,
      place(c.var.session, id),
      commentId,
      replyId,
      sessionActor(c.var.session),
    )
    return c.json({ success: true })
  },
)
