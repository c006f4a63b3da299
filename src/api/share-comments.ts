import { Hono } from 'hono'
import { visitorComment, visitorComments, visitorReply } from '../domain/comments/visitors'
import { checkedBy } from '../http/access'
import type { AppEnv } from '../http/context'
import { POST_KEY_HEADER, postKeyOf } from '../http/idempotency'
import { limitCommentPosts } from '../http/limits'
import { documented } from '../http/route-docs'
import { PASSWORD, shareAccess, UNUSABLE } from '../http/share-access'
import { jsonBody, params, query } from '../http/validate'
import {
  commentsQuery,
  linkCommentInPath,
  linkInPath,
  visitorCommentBody,
  visitorReplyBody,
} from '../schema/requests'
import * as shapes from '../schema/responses'

// A share link's comments (docs/comments-and-webhooks.md): its readers read the canvas's comments
// and add their own under a name of their choice, when the link allows comments. No account: the
// token (and the password when set) is the credential, and what a visitor may post is bounded per
// client address.
export const shareComments = new Hono<AppEnv>()

const REFUSED = [...UNUSABLE, 'canvas_not_found', 'comments_disabled'] as const

shareComments.get(
  '/:token/comments',
  checkedBy('share'),
  params(linkInPath),
  query(commentsQuery),
  documented({
    summary: 'A share link’s comments',
    description:
      'The canvas’s comments (open unless `status` says otherwise), when the link allows ' +
      'comments. Never counts a view.',
    tag: 'Public shares',
    auth: 'none',
    headers: [PASSWORD],
    responses: { 200: { description: 'The comments.', schema: shapes.commentList } },
    errors: [...REFUSED],
  }),
  async (c) => {
    const access = shareAccess(c, c.req.valid('param').token)
    return c.json({ comments: await visitorComments(c.var.svc, access, c.req.valid('query')) })
  },
)

shareComments.post(
  '/:token/comments',
  checkedBy('share'),
  params(linkInPath),
  jsonBody(visitorCommentBody),
  documented({
    summary: 'Comment through a share link',
    description:
      'On the version the link shows, under the display `name` given; anchored as the API’s ' +
      'comments are. Rate-limited per client address.',
    tag: 'Public shares',
    auth: 'none',
    headers: [PASSWORD, POST_KEY_HEADER],
    responses: { 201: { description: 'The comment.', schema: shapes.comment } },
    errors: [...REFUSED, 'conflict'],
  }),
  async (c) => {
    await limitCommentPosts(c)
    const { token } = c.req.valid('param')
    const input = { ...c.req.valid('json'), requestKey: await postKeyOf(c, `share:${token}`) }
    return c.json(await visitorComment(c.var.svc, shareAccess(c, token), input), 201)
  },
)

shareComments.post(
  '/:token/comments/:comment_id/replies',
  checkedBy('share'),
  params(linkCommentInPath),
  jsonBody(visitorReplyBody),
  documented({
    summary: 'Reply through a share link',
    description: 'Under the display `name` given. Rate-limited per client address.',
    tag: 'Public shares',
    auth: 'none',
    headers: [PASSWORD, POST_KEY_HEADER],
    responses: { 201: { description: 'The reply.', schema: shapes.reply } },
    errors: [...REFUSED, 'comment_not_found', 'conflict'],
  }),
  async (c) => {
    await limitCommentPosts(c)
    const { token, comment_id: commentId } = c.req.valid('param')
    const input = { ...c.req.valid('json'), requestKey: await postKeyOf(c, `share:${token}`) }
    const reply = await visitorReply(c.var.svc, shareAccess(c, token), commentId, input)
    return c.json(reply, 201)
  },
)
