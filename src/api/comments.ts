import { Hono } from 'hono'
import {
  createComment,
  deleteComment,
  deleteReply,
  listComments,
  replyToComment,
  setCommentStatus,
  type CommentPlace,
} from '../domain/comments/comments'
import type { KeyAuth } from '../domain/keys'
import type { AppEnv } from '../http/context'
import { keyAccess } from '../http/access'
import { documented } from '../http/route-docs'
import { jsonBody, params, query } from '../http/validate'
import {
  canvasInPath,
  commentInPath,
  commentsQuery,
  createCommentBody,
  replyBody,
  replyInPath,
} from '../schema/requests'
import * as shapes from '../schema/responses'

// Comments of one canvas: /v1/canvases/:id/comments (docs/comments-and-webhooks.md). Reading needs
// the `read` scope, every change `write`; what a key writes is signed with the key's name.
export const comments = new Hono<AppEnv>()

const place = (auth: KeyAuth, canvasId: string): CommentPlace => ({
  workspaceId: auth.workspaceId,
  canvasId,
})
const byKey = (auth: KeyAuth) => ({
  name: auth.keyName,
  kind: 'member' as const,
  userId: auth.userId,
  by: auth.by,
})

comments.get(
  '/',
  keyAccess,
  params(canvasInPath),
  query(commentsQuery),
  documented({
    summary: 'List comments',
    description:
      'Open comments unless `status` says `resolved` or `all`; only those made on `version` ' +
      'when given. Oldest first, each with its replies.',
    tag: 'Comments',
    auth: 'key',
    responses: { 200: { description: 'The comments.', schema: shapes.commentList } },
    errors: ['canvas_not_found'],
  }),
  async (c) => {
    const where = place(c.var.auth, c.req.valid('param').id)
    return c.json({ comments: await listComments(c.var.svc, where, c.req.valid('query')) })
  },
)

comments.post(
  '/',
  keyAccess,
  params(canvasInPath),
  jsonBody(createCommentBody),
  documented({
    summary: 'Comment on a canvas',
    description:
      'On the latest version, or `version`; anchored to a text `quote` of the content, a `point` ' +
      '(fractions of its width and height), or, without `anchor`, the canvas as a whole. The ' +
      'body is Markdown.',
    tag: 'Comments',
    auth: 'key',
    responses: { 201: { description: 'The comment.', schema: shapes.comment } },
    errors: ['canvas_not_found', 'version_not_found', 'conflict'],
  }),
  async (c) => {
    const { auth, svc } = c.var
    const where = place(auth, c.req.valid('param').id)
    return c.json(await createComment(svc, where, byKey(auth), c.req.valid('json')), 201)
  },
)

comments.post(
  '/:comment_id/replies',
  keyAccess,
  params(commentInPath),
  jsonBody(replyBody),
  documented({
    summary: 'Reply to a comment',
    description: 'Replies are one level deep: a reply is to a comment, never to a reply.',
    tag: 'Comments',
    auth: 'key',
    responses: { 201: { description: 'The reply.', schema: shapes.reply } },
    errors: ['canvas_not_found', 'comment_not_found', 'conflict'],
  }),
  async (c) => {
    const { auth, svc } = c.var
    const { id, comment_id: commentId } = c.req.valid('param')
    const { body } = c.req.valid('json')
    return c.json(await replyToComment(svc, place(auth, id), byKey(auth), commentId, body), 201)
  },
)

for (const [action, status] of [
  ['resolve', 'resolved'],
  ['reopen', 'open'],
] as const) {
  comments.post(
    `/:comment_id/${action}`,
    keyAccess,
    params(commentInPath),
    documented({
      summary: action === 'resolve' ? 'Resolve a comment' : 'Reopen a comment',
      description:
        action === 'resolve'
          ? 'Marks it resolved; resolving one already resolved changes nothing.'
          : 'Marks a resolved comment open again.',
      tag: 'Comments',
      auth: 'key',
      responses: { 200: { description: 'The comment.', schema: shapes.comment } },
      errors: ['canvas_not_found', 'comment_not_found'],
    }),
    async (c) => {
      const { id, comment_id: commentId } = c.req.valid('param')
      const { svc, auth } = c.var
      return c.json(await setCommentStatus(svc, place(auth, id), commentId, status, auth.by))
    },
  )
}

comments.delete(
  '/:comment_id',
  keyAccess,
  params(commentInPath),
  documented({
    summary: 'Delete a comment',
    description: 'Its replies go with it. Any comment of the canvas, a visitor’s too.',
    tag: 'Comments',
    auth: 'key',
    responses: { 200: { description: 'Deleted.', schema: shapes.success } },
    errors: ['canvas_not_found', 'comment_not_found'],
  }),
  async (c) => {
    const { id, comment_id: commentId } = c.req.valid('param')
    await deleteComment(c.var.svc, place(c.var.auth, id), commentId, c.var.auth)
    return c.json({ success: true })
  },
)

comments.delete(
  '/:comment_id/replies/:reply_id',
  keyAccess,
  params(replyInPath),
  documented({
    summary: 'Delete a reply',
    tag: 'Comments',
    auth: 'key',
    responses: { 200: { description: 'Deleted.', schema: shapes.success } },
    errors: ['canvas_not_found', 'comment_not_found'],
  }),
  async (c) => {
    const { id, comment_id: commentId, reply_id: replyId } = c.req.valid('param')
    await deleteReply(c.var.svc, place(c.var.auth, id), commentId, replyId, c.var.auth)
    return c.json({ success: true })
  },
)
