import { Hono, type Context, type MiddlewareHandler } from 'hono'
import {
  createComment,
  deleteComment,
  deleteReply,
  listComments,
  replyToComment,
  setCommentStatus,
  type Author,
} from '../domain/comments/comments'
import type { Actor } from '../domain/actor'
import { waitForComments } from '../domain/comments/wait'
import {
  canvasInPath,
  commentInPath,
  commentsQuery,
  commentWaitQuery,
  MAX_WAIT_SECONDS,
  createCommentBody,
  replyBody,
  replyInPath,
} from '../schema/requests'
import { database } from '../storage/db'
import type { AppEnv } from './context'
import { documented, documentedNot, type RouteDoc } from './route-docs'
import { jsonBody, params, query } from './validate'
import { listenAs, requireStillActing } from './actor/listen'

// A canvas's comments for the members of its workspace, written once and mounted twice: under the
// API (`/v1/canvases/:id/comments`, a key or an app) and under the owner's page (`/c/:id/comments`,
// a web session, for the page's script). A mount says how its credential gets in, by access steps
// that state what each kind of route needs; what each route does is the same for both.

/** What a member's comments are signed with: their key's or app's name, or their email. */
const authorOf = (actor: Actor): Author => ({
  name: actor.by.name,
  kind: 'member',
  userId: actor.userId,
  by: actor.by,
})

export type CommentMount = {
  /**
   * The access step of reading; of commenting and replying; of resolving, reopening and deleting:
   * each one step, marked with the statement of its access (http/actor/statement.ts).
   */
  read: MiddlewareHandler
  write: MiddlewareHandler
  moderate: MiddlewareHandler
  /**
   * The post's Idempotency-Key with its sender, for a mount whose access does not keep one
   * itself (the API's key access answers a repeated post before the route runs).
   */
  requestKey?: (c: Context<AppEnv>) => Promise<string | undefined>
  /** Whether the API's description (/openapi.json) lists this mount's routes. */
  documented: boolean
}

export function commentRoutes(mount: CommentMount) {
  const routes = new Hono<AppEnv>()
  const doc: Doc = (d) => (mount.documented ? documented({ ...d, tag: 'Comments' }) : documentedNot)
  reading(routes, mount, doc)
  writing(routes, mount, doc)
  moderating(routes, mount, doc)
  return routes
}

/** A route's description under this mount: in the API's, or left out. */
type Doc = (d: Omit<RouteDoc, 'tag'>) => MiddlewareHandler
type Routes = Hono<AppEnv>

const placeOf = (c: Context<AppEnv>, canvasId: string) => ({
  workspaceId: c.var.actor.workspaceId,
  canvasId,
})

/** The comments, and the wait for new ones. */
function reading(routes: Routes, mount: CommentMount, doc: Doc) {
  routes.get(
    '/',
    mount.read,
    params(canvasInPath),
    query(commentsQuery),
    doc({
      summary: 'List comments',
      description:
        'Open comments unless `status` says `resolved` or `all`; only those made on `version` ' +
        'when given. Oldest first, each with its replies.',
      responses: { 200: { description: 'The comments.', schema: 'commentList' } },
      errors: ['canvas_not_found'],
    }),
    async (c) => {
      const where = placeOf(c, c.req.valid('param').id)
      c.header('Cache-Control', 'no-store')
      return c.json({ comments: await listComments(c.var.svc, where, c.req.valid('query')) })
    },
  )

  routes.get(
    '/wait',
    mount.read,
    params(canvasInPath),
    query(commentWaitQuery),
    doc({
      summary: 'Wait for comments',
      description:
        'Answers as soon as a comment or reply is made after `since` (default: now), with the ' +
        `threads that have one, or with none after \`timeout_s\` (default 30, at most ${MAX_WAIT_SECONDS}). ` +
        'Pass the answer’s `since` to the next wait. For an agent that waits for a person’s review.',
      responses: { 200: { description: 'What is new.', schema: 'commentNews' } },
      errors: ['canvas_not_found'],
    }),
    async (c) => {
      const where = placeOf(c, c.req.valid('param').id)
      const { since, timeout_s: seconds } = c.req.valid('query')
      // Read from the primary: woken by a comment just stored, a replica may not have it yet.
      const svc = { ...c.var.svc, db: database(c.env.DB) }
      c.header('Cache-Control', 'no-store')
      const { actor } = c.var
      const wait = (seconds ?? 30) * 1000
      const tags = await listenAs(svc, actor, where)
      const news = await waitForComments(svc, where, since ?? svc.now(), wait, tags)
      await requireStillActing(svc, actor)
      return c.json(news)
    },
  )
}

/** A comment, and a reply to one. */
function writing(routes: Routes, mount: CommentMount, doc: Doc) {
  const keyOf = (c: Context<AppEnv>) => mount.requestKey?.(c) ?? Promise.resolve(undefined)

  routes.post(
    '/',
    mount.write,
    params(canvasInPath),
    jsonBody(createCommentBody),
    doc({
      summary: 'Comment on a canvas',
      description:
        'On the latest version, or `version`; anchored to a text `quote` of the content, a ' +
        '`point` (fractions of its width and height), or, without `anchor`, the canvas as a ' +
        'whole. The body is Markdown.',
      responses: { 201: { description: 'The comment.', schema: 'comment' } },
      errors: ['canvas_not_found', 'version_not_found', 'conflict'],
    }),
    async (c) => {
      const where = placeOf(c, c.req.valid('param').id)
      const input = { ...c.req.valid('json'), requestKey: await keyOf(c) }
      return c.json(await createComment(c.var.svc, where, authorOf(c.var.actor), input), 201)
    },
  )

  routes.post(
    '/:comment_id/replies',
    mount.write,
    params(commentInPath),
    jsonBody(replyBody),
    doc({
      summary: 'Reply to a comment',
      description: 'Replies are one level deep: a reply is to a comment, never to a reply.',
      responses: { 201: { description: 'The reply.', schema: 'reply' } },
      errors: ['canvas_not_found', 'comment_not_found', 'conflict'],
    }),
    async (c) => {
      const { id, comment_id: commentId } = c.req.valid('param')
      const { body } = c.req.valid('json')
      const author = authorOf(c.var.actor)
      const reply = await replyToComment(
        c.var.svc,
        placeOf(c, id),
        author,
        commentId,
        body,
        await keyOf(c),
      )
      return c.json(reply, 201)
    },
  )
}

/** Resolving, reopening and deleting, which a viewer may not. */
function moderating(routes: Routes, mount: CommentMount, doc: Doc) {
  for (const [action, status] of [
    ['resolve', 'resolved'],
    ['reopen', 'open'],
  ] as const) {
    routes.post(
      `/:comment_id/${action}`,
      mount.moderate,
      params(commentInPath),
      doc({
        summary: action === 'resolve' ? 'Resolve a comment' : 'Reopen a comment',
        description:
          action === 'resolve'
            ? 'Marks it resolved; resolving one already resolved changes nothing.'
            : 'Marks a resolved comment open again.',
        responses: { 200: { description: 'The comment.', schema: 'comment' } },
        errors: ['canvas_not_found', 'comment_not_found'],
      }),
      async (c) => {
        const { id, comment_id: commentId } = c.req.valid('param')
        const { by } = c.var.actor
        return c.json(await setCommentStatus(c.var.svc, placeOf(c, id), commentId, status, by))
      },
    )
  }

  routes.delete(
    '/:comment_id',
    mount.moderate,
    params(commentInPath),
    doc({
      summary: 'Delete a comment',
      description: 'Its replies go with it. Any comment of the canvas, a visitor’s too.',
      responses: { 200: { description: 'Deleted.', schema: 'success' } },
      errors: ['canvas_not_found', 'comment_not_found'],
    }),
    async (c) => {
      const { id, comment_id: commentId } = c.req.valid('param')
      await deleteComment(c.var.svc, placeOf(c, id), commentId, c.var.actor)
      return c.json({ success: true })
    },
  )

  routes.delete(
    '/:comment_id/replies/:reply_id',
    mount.moderate,
    params(replyInPath),
    doc({
      summary: 'Delete a reply',
      responses: { 200: { description: 'Deleted.', schema: 'success' } },
      errors: ['canvas_not_found', 'comment_not_found'],
    }),
    async (c) => {
      const { id, comment_id: commentId, reply_id: replyId } = c.req.valid('param')
      const { actor } = c.var
      await deleteReply(c.var.svc, placeOf(c, id), commentId, replyId, actor)
      return c.json({ success: true })
    },
  )
}
