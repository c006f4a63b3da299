import { Hono, type Context } from 'hono'
import { createComment, listComments, replyToComment } from '../domain/comments'
import { shareCommentPlace } from '../domain/public-shares'
import { checkedBy } from '../http/access'
import type { AppEnv } from '../http/context'
import { clientIp, limit } from '../http/limits'
import { shareAccess } from '../http/share-access'
import { jsonBody, params, query } from '../http/validate'
import {
  commentsQuery,
  linkCommentInPath,
  linkInPath,
  visitorCommentBody,
  visitorReplyBody,
} from '../schema/requests'
import { hasView } from './view-ticket'

// A share page's comments, for its script: the public /share/:token/comments routes, except that
// a link's password given on the page a while ago (its view cookie, scoped to the link's path)
// stands for the password, so the page never asks for it twice. Same checks, same limits.
export const shareComments = new Hono<AppEnv>()

async function placeOf(c: Context<AppEnv>, token: string) {
  const access = { ...shareAccess(c, token), passwordGiven: await hasView(c, token) }
  return shareCommentPlace(c.var.svc, access)
}

const limitPosts = (c: Context<AppEnv>) => limit(c.env.COMMENT_LIMITER, `ip:${clientIp(c)}`)

shareComments.get(
  '/:token/comments',
  checkedBy('share'),
  params(linkInPath),
  query(commentsQuery),
  async (c) => {
    const { place } = await placeOf(c, c.req.valid('param').token)
    c.header('Cache-Control', 'no-store')
    return c.json({ comments: await listComments(c.var.svc, place, c.req.valid('query')) })
  },
)

shareComments.post(
  '/:token/comments',
  checkedBy('share'),
  params(linkInPath),
  jsonBody(visitorCommentBody),
  async (c) => {
    await limitPosts(c)
    const { place, version } = await placeOf(c, c.req.valid('param').token)
    const { body, name, anchor } = c.req.valid('json')
    const author = { name, kind: 'visitor' } as const
    return c.json(await createComment(c.var.svc, place, author, { body, anchor, version }), 201)
  },
)

shareComments.post(
  '/:token/comments/:comment_id/replies',
  checkedBy('share'),
  params(linkCommentInPath),
  jsonBody(visitorReplyBody),
  async (c) => {
    await limitPosts(c)
    const { token, comment_id: commentId } = c.req.valid('param')
    const { place } = await placeOf(c, token)
    const { body, name } = c.req.valid('json')
    const author = { name, kind: 'visitor' } as const
    return c.json(await replyToComment(c.var.svc, place, author, commentId, body), 201)
  },
)
