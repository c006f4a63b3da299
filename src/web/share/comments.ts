import { Hono, type Context } from 'hono'
import { visitorComment, visitorComments, visitorReply } from '../../domain/comments/visitors'
import { checkedBy } from '../../http/access'
import type { AppEnv } from '../../http/context'
import { postKeyOf } from '../../http/idempotency'
import { limitCommentPosts } from '../../http/limits'
import { shareAccess } from '../../http/share-access'
import { jsonBody, params, query } from '../../http/validate'
import {
  commentsQuery,
  linkCommentInPath,
  linkInPath,
  visitorCommentBody,
  visitorReplyBody,
} from '../../schema/requests'
import { hasView } from './view-ticket'

// A share page's comments, for its script: the public /share/:token/comments routes, except that
// a link's password given on the page a while ago (its view cookie, scoped to the link's path)
// stands for the password, so the page never asks for it twice. Same checks, same limits.
export const shareComments = new Hono<AppEnv>()

/** The link as the page presents it: its view cookie stands for the password. */
async function accessOf(c: Context<AppEnv>, token: string) {
  return { ...shareAccess(c, token), passwordGiven: await hasView(c, token) }
}

shareComments.get(
  '/:token/comments',
  checkedBy('share'),
  params(linkInPath),
  query(commentsQuery),
  async (c) => {
    const access = await accessOf(c, c.req.valid('param').token)
    const comments = await visitorComments(c.var.svc, access, c.req.valid('query'))
    c.header('Cache-Control', 'no-store')
    return c.json({ comments })
  },
)

shareComments.post(
  '/:token/comments',
  checkedBy('share'),
  params(linkInPath),
  jsonBody(visitorCommentBody),
  async (c) => {
    await limitCommentPosts(c)
    const { token } = c.req.valid('param')
    const access = await accessOf(c, token)
    const input = { ...c.req.valid('json'), requestKey: await postKeyOf(c, `share:${token}`) }
    return c.json(await visitorComment(c.var.svc, access, input), 201)
  },
)

shareComments.post(
  '/:token/comments/:comment_id/replies',
  checkedBy('share'),
  params(linkCommentInPath),
  jsonBody(visitorReplyBody),
  async (c) => {
    await limitCommentPosts(c)
    const { token, comment_id: commentId } = c.req.valid('param')
    const access = await accessOf(c, token)
    const input = { ...c.req.valid('json'), requestKey: await postKeyOf(c, `share:${token}`) }
    return c.json(await visitorReply(c.var.svc, access, commentId, input), 201)
  },
)
