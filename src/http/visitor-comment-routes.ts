import { Hono, type Context } from 'hono'
import { visitorComment, visitorComments, visitorReply } from '../domain/comments/visitors'
import type { ShareAccess } from '../domain/shares/public'
import {
  commentsQuery,
  linkCommentInPath,
  linkInPath,
  visitorCommentBody,
  visitorReplyBody,
} from '../schema/requests'
import { checkedBy } from './actor/steps'
import type { AppEnv } from './context'
import { POST_KEY_HEADER, postKeyOf } from './idempotency'
import { limitCommentPosts } from './limits'
import { documented, documentedNot, type RouteDoc } from './route-docs'
import { PASSWORD, UNUSABLE } from './actor/share'
import { jsonBody, params, query } from './validate'

// A share link's comments for its readers (docs/comments-and-webhooks.md), written once and
// mounted twice: the public API (`/share/:token/comments`, the token and the password header are
// the credential) and the share page's script (`/s/:token/comments`, where the page's view cookie
// also stands for the password). No account: what a visitor may post is bounded per client
// address, and each post is made once however often it is sent (its Idempotency-Key).

export type VisitorMount = {
  /** The link as this mount presents it. */
  access: (c: Context<AppEnv>, token: string) => Promise<ShareAccess>
  /** Whether the API's description (/openapi.json) lists this mount's routes. */
  documented: boolean
}

const REFUSED = [...UNUSABLE, 'canvas_not_found', 'comments_disabled'] as const

export function visitorCommentRoutes(mount: VisitorMount) {
  const routes = new Hono<AppEnv>()
  const doc = (d: Omit<RouteDoc, 'tag'>) =>
    mount.documented ? documented({ ...d, tag: 'Public shares' }) : documentedNot
  const keyOf = (c: Context<AppEnv>, token: string) => postKeyOf(c, `share:${token}`)

  routes.get(
    '/:token/comments',
    checkedBy('share'),
    params(linkInPath),
    query(commentsQuery),
    doc({
      summary: 'A share link’s comments',
      description:
        'The canvas’s comments (open unless `status` says otherwise), when the link allows ' +
        'comments. Never counts a view.',
      headers: [PASSWORD],
      responses: { 200: { description: 'The comments.', schema: 'commentList' } },
      errors: [...REFUSED],
    }),
    async (c) => {
      const access = await mount.access(c, c.req.valid('param').token)
      const comments = await visitorComments(c.var.svc, access, c.req.valid('query'))
      c.header('Cache-Control', 'no-store')
      return c.json({ comments })
    },
  )

  routes.post(
    '/:token/comments',
    checkedBy('share'),
    params(linkInPath),
    jsonBody(visitorCommentBody),
    doc({
      summary: 'Comment through a share link',
      description:
        'On the version the link shows, under the display `name` given; anchored as the API’s ' +
        'comments are. Rate-limited per client address.',
      headers: [PASSWORD, POST_KEY_HEADER],
      responses: { 201: { description: 'The comment.', schema: 'comment' } },
      errors: [...REFUSED, 'conflict'],
    }),
    async (c) => {
      await limitCommentPosts(c)
      const { token } = c.req.valid('param')
      const access = await mount.access(c, token)
      const input = { ...c.req.valid('json'), requestKey: await keyOf(c, token) }
      return c.json(await visitorComment(c.var.svc, access, input), 201)
    },
  )

  routes.post(
    '/:token/comments/:comment_id/replies',
    checkedBy('share'),
    params(linkCommentInPath),
    jsonBody(visitorReplyBody),
    doc({
      summary: 'Reply through a share link',
      description: 'Under the display `name` given. Rate-limited per client address.',
      headers: [PASSWORD, POST_KEY_HEADER],
      responses: { 201: { description: 'The reply.', schema: 'reply' } },
      errors: [...REFUSED, 'comment_not_found', 'conflict'],
    }),
    async (c) => {
      await limitCommentPosts(c)
      const { token, comment_id: commentId } = c.req.valid('param')
      const access = await mount.access(c, token)
      const input = { ...c.req.valid('json'), requestKey: await keyOf(c, token) }
      return c.json(await visitorReply(c.var.svc, access, commentId, input), 201)
    },
  )

  return routes
}
