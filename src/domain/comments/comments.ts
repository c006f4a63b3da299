import { and, asc, eq, exists, inArray, isNull, lt, lte, sql } from 'drizzle-orm'
import { localPart } from '../../lib/names'
import { AppError } from '../../lib/errors'
import { newId } from '../../lib/crypto'
import type { CommentAnchor, CommentsQuery } from '../../schema/requests'
import type { Comment, CommentAuthor, Reply } from '../../schema/responses'
import { alias, type SQLiteColumn } from 'drizzle-orm/sqlite-core'
import { one, value } from '../../storage/db'
import { canvases, comments, versions } from '../../storage/schema'
import { canvasNotFound } from '../canvases/rows'
import { unexpiredCanvasId, unexpiredCanvasOf, selectUnexpiredCanvas } from '../canvases/unexpired'
import { iso, isoOrNull, type Services } from '../services'
import { type ActingAs, type Actor } from '../actor'
import { eventActor } from '../webhooks/events'
import { announceAudit, recordOf } from '../audit/record'
import { publicNameOf } from '../users'

// Comments on a canvas and their replies (docs/comments-and-webhooks.md): made by the workspace's
// people and agents, and by the readers of a share link that allows them. Each change is one D1
// round trip: its condition (a unexpired canvas of the workspace, the limits) is part of the statement
// that writes, and the thread the answer shows is read in the same batch. Viewers hear of each
// change through the canvas's object, and a new comment or reply is announced to the workspace's
// webhooks.

/** Comments (not counting replies) a canvas may hold, and replies a comment may hold. */
export const MAX_COMMENTS = 500
export const MAX_REPLIES = 100

/**
 * The canvas a change is made on: its workspace is the caller's, or the share link's. Through a
 * link (`visitors`), names are those people outside the workspace see, never an email; and a link
 * pinned to a version reaches only the comments made on that version or before (`upTo`): what
 * was said of a later version may quote what the link must not show.
 */
export type CommentPlace = {
  workspaceId: string
  canvasId: string
  visitors?: boolean
  upTo?: number
}

/** Who writes: the name members see, and the member's account when a member (or their key) writes. */
/** Who writes: as the comment shows them, and how they came (none for a share link's reader). */
export type Author = CommentAuthor & { userId?: string; by?: ActingAs }

/** The author's part in the events their comments cause. */
const actorOf = (author: Author) =>
  author.by ? eventActor(author.by) : { actor: { kind: 'visitor' as const, name: author.name } }

/** Whether a comment made on `version` is one the place reaches. */
const reaches = (place: CommentPlace, version: number) =>
  place.upTo === undefined || version <= place.upTo

/** The same, as a condition on a comment's version column. */
const reachedBy = (place: CommentPlace, version: SQLiteColumn) =>
  place.upTo === undefined ? undefined : lte(version, place.upTo)

type Row = typeof comments.$inferSelect

// The comment a reply is inserted under, read in the same statement.
const parent = alias(comments, 'parent')

export const commentNotFound = () => new AppError('comment_not_found', 'comment not found')

/** Who wrote a row, as the place's readers are shown it. */
function authorOf(row: Row, visitors: boolean | undefined): CommentAuthor {
  if (!visitors) return { name: row.authorName, kind: row.authorKind }
  // Rows older than the public name kept a member's email as their name: its local part stands in.
  return { name: row.authorPublicName ?? localPart(row.authorName), kind: row.authorKind }
}

function presentReply(row: Row, visitors?: boolean): Reply {
  return {
    reply_id: row.commentId,
    body: row.body,
    author: authorOf(row, visitors),
    created_at: iso(row.createdAt),
  }
}

function presentComment(row: Row, replies: Row[], visitors?: boolean): Comment {
  return {
    comment_id: row.commentId,
    canvas_id: row.canvasId,
    version: row.version,
    anchor: row.anchor === null ? null : (JSON.parse(row.anchor) as CommentAnchor),
    body: row.body,
    author: authorOf(row, visitors),
    status: row.status ?? 'open',
    created_at: iso(row.createdAt),
    resolved_at: isoOrNull(row.resolvedAt),
    replies: replies.map((reply) => presentReply(reply, visitors)),
  }
}

/** Comments in the order they were made, each with its replies in theirs. */
function threads(tops: Row[], replies: Row[], visitors?: boolean): Comment[] {
  const byParent = new Map<string, Row[]>()
  for (const reply of replies) {
    const list = byParent.get(reply.parentId!) ?? []
    list.push(reply)
    byParent.set(reply.parentId!, list)
  }
  return tops.map((top) => presentComment(top, byParent.get(top.commentId) ?? [], visitors))
}

/**
 * The columns that say who wrote a new row, and the Idempotency-Key it was sent with: a member's
 * public name is read as it is inserted.
 */
function authorColumns(svc: Services, author: Author, requestKey: string | undefined) {
  // In the table's order of columns, as an INSERT ... SELECT needs them.
  return {
    authorName: value(comments.authorName, author.name),
    authorKind: value(comments.authorKind, author.kind),
    authorUserId: value(comments.authorUserId, author.userId ?? null),
    authorPublicName:
      author.userId && author.kind === 'member'
        ? publicNameOf(svc.db, author.userId).as(comments.authorPublicName.name)
        : value(comments.authorPublicName, null),
    requestKey: value(comments.requestKey, requestKey ?? null),
  }
}

/**
 * The canvas's comments with `status` (open by default), of one `version` when given, each with
 * its replies. The canvas's rows lie together (the table's key starts with it), so one read takes
 * them all, each once; the canvas's own row says whether it may be read at all.
 */
export async function listComments(svc: Services, place: CommentPlace, query: CommentsQuery) {
  const db = svc.db
  const [canvas, rows] = await db.batch([
    selectUnexpiredCanvas(svc, place, place.canvasId),
    // In key order, sorted here: D1 counts each row a sort in SQL passes through once more.
    db.select().from(comments).where(eq(comments.canvasId, place.canvasId)),
  ])
  if (canvas.length === 0) throw canvasNotFound()
  rows.sort((a, b) => a.createdAt - b.createdAt || (a.commentId < b.commentId ? -1 : 1))
  const status = query.status ?? 'open'
  const tops = rows.filter(
    (row) =>
      row.parentId === null &&
      (status === 'all' || row.status === status) &&
      (query.version === undefined || row.version === query.version) &&
      reaches(place, row.version),
  )
  return threads(
    tops,
    rows.filter((row) => row.parentId !== null),
    place.visitors,
  )
}

export type NewComment = {
  body: string
  anchor?: CommentAnchor | null
  /** The version it is made on; the canvas's latest when absent. */
  version?: number
  /** The post's Idempotency-Key with its sender (requestKeyOf): sent twice, it makes one. */
  requestKey?: string
}

/**
 * A new comment, open, on the unexpired canvas of the place (and its `version` when given). Inserted by
 * one statement only while the canvas holds fewer than MAX_COMMENTS (its count, kept by a trigger),
 * so that two at once cannot pass the limit together.
 */
export async function createComment(
  svc: Services,
  place: CommentPlace,
  author: Author,
  input: NewComment,
) {
  const db = svc.db
  const now = svc.now()
  const version = input.version
  const inserted = await db
    .insert(comments)
    .select((qb) =>
      qb
        .select({
          canvasId: canvases.canvasId,
          commentId: value(comments.commentId, newId()),
          parentId: value(comments.parentId, null),
          version: version === undefined ? canvases.version : value(comments.version, version),
          anchor: value(comments.anchor, input.anchor ? JSON.stringify(input.anchor) : null),
          body: value(comments.body, input.body),
          ...authorColumns(svc, author, input.requestKey),
          status: value(comments.status, 'open'),
          createdAt: value(comments.createdAt, now),
          resolvedAt: value(comments.resolvedAt, null),
          replyCount: value(comments.replyCount, 0),
        })
        .from(canvases)
        .where(
          and(
            unexpiredCanvasOf(place, place.canvasId, now),
            version === undefined
              ? undefined
              : exists(
                  db
                    .select(one)
                    .from(versions)
                    .where(
                      and(eq(versions.canvasId, canvases.canvasId), eq(versions.version, version)),
                    ),
                ),
            lt(canvases.commentCount, MAX_COMMENTS),
          ),
        ),
    )
    .onConflictDoNothing()
    .returning()
  const row = inserted[0]
  if (!row) {
    const earlier = await postedBefore(svc, place, input.requestKey, null, input.body)
    if (earlier) return presentComment(earlier.top, earlier.replies, place.visitors)
    await whyNotCommented(svc, place, version)
  }
  const comment = tellViewers(svc, place, row, [])
  svc.events?.({
    type: 'comment.created',
    workspaceId: place.workspaceId,
    data: { canvas_id: place.canvasId, comment },
    ...actorOf(author),
  })
  return place.visitors ? presentComment(row, [], true) : comment
}

/** Says why a comment was not inserted: no canvas, no such version, or the canvas is full. */
async function whyNotCommented(
  svc: Services,
  place: CommentPlace,
  version: number | undefined,
): Promise<never> {
  const db = svc.db
  const [canvas, found] = await db.batch([
    selectUnexpiredCanvas(svc, place, place.canvasId),
    db
      .select(one)
      .from(versions)
      .where(and(eq(versions.canvasId, place.canvasId), eq(versions.version, version ?? 0))),
  ])
  if (canvas.length === 0) throw canvasNotFound()
  if (version !== undefined && found.length === 0) {
    throw new AppError('version_not_found', `version: canvas has no version ${version}`)
  }
  throw new AppError(
    'conflict',
    `a canvas may hold at most ${MAX_COMMENTS} comments; delete some first`,
  )
}

/** The comment (not a reply) of a unexpired canvas of the place, with its replies. */
function selectThread(svc: Services, place: CommentPlace, commentId: string) {
  const db = svc.db
  return [
    db
      .select()
      .from(comments)
      .where(
        and(
          eq(comments.commentId, commentId),
          eq(comments.canvasId, place.canvasId),
          isNull(comments.parentId),
          reachedBy(place, comments.version),
          inArray(comments.canvasId, unexpiredCanvasId(svc, place, place.canvasId)),
        ),
      ),
    db
      .select()
      .from(comments)
      .where(and(eq(comments.canvasId, place.canvasId), eq(comments.parentId, commentId)))
      .orderBy(asc(comments.createdAt), comments.commentId),
  ] as const
}

/** A reply to a comment; its thread as it now stands goes to viewers and webhooks. */
export async function replyToComment(
  svc: Services,
  place: CommentPlace,
  author: Author,
  commentId: string,
  body: string,
  requestKey?: string,
) {
  const db = svc.db
  const now = svc.now()
  const [inserted, tops, thread] = await db.batch([
    db
      .insert(comments)
      .select((qb) =>
        qb
          .select({
            canvasId: parent.canvasId,
            commentId: value(comments.commentId, newId()),
            parentId: parent.commentId,
            version: parent.version,
            anchor: value(comments.anchor, null),
            body: value(comments.body, body),
            ...authorColumns(svc, author, requestKey),
            status: value(comments.status, null),
            createdAt: value(comments.createdAt, now),
            resolvedAt: value(comments.resolvedAt, null),
            replyCount: value(comments.replyCount, 0),
          })
          .from(parent)
          .where(
            and(
              eq(parent.commentId, commentId),
              eq(parent.canvasId, place.canvasId),
              isNull(parent.parentId),
              reachedBy(place, parent.version),
              inArray(parent.canvasId, unexpiredCanvasId(svc, place, place.canvasId)),
              lt(parent.replyCount, MAX_REPLIES),
            ),
          ),
      )
      .onConflictDoNothing()
      .returning(),
    ...selectThread(svc, place, commentId),
  ])
  const row = inserted[0]
  if (!row) {
    if (tops.length === 0) await throwMissing(svc, place)
    const earlier = await postedBefore(svc, place, requestKey, commentId, body)
    if (earlier) return presentReply(earlier.top, place.visitors)
    throw new AppError(
      'conflict',
      `a comment may hold at most ${MAX_REPLIES} replies; start a new comment`,
    )
  }
  const comment = tellViewers(svc, place, tops[0], thread)
  const reply = presentReply(row)
  svc.events?.({
    type: 'comment.replied',
    workspaceId: place.workspaceId,
    data: { canvas_id: place.canvasId, comment, reply },
    ...actorOf(author),
  })
  return place.visitors ? presentReply(row, true) : reply
}

/**
 * Marks a comment resolved or open again; resolving one resolved already changes nothing. A
 * comment resolved now is announced to webhooks (`comment.resolved`).
 */
export async function setCommentStatus(
  svc: Services,
  place: CommentPlace,
  commentId: string,
  status: 'open' | 'resolved',
  by: ActingAs,
) {
  const db = svc.db
  const now = svc.now()
  const [changed, tops, replies] = await db.batch([
    db
      .update(comments)
      .set({ status, resolvedAt: status === 'resolved' ? now : null })
      .where(
        and(
          eq(comments.commentId, commentId),
          eq(comments.canvasId, place.canvasId),
          isNull(comments.parentId),
          // Resolved once, it keeps the moment it was resolved.
          status === 'resolved' ? eq(comments.status, 'open') : eq(comments.status, 'resolved'),
          inArray(comments.canvasId, unexpiredCanvasId(svc, place, place.canvasId)),
        ),
      )
      .returning({ commentId: comments.commentId }),
    ...selectThread(svc, place, commentId),
  ])
  if (tops.length === 0) await throwMissing(svc, place)
  const comment = tellViewers(svc, place, tops[0], replies)
  if (status === 'resolved' && changed.length > 0) {
    svc.events?.({
      type: 'comment.resolved',
      workspaceId: place.workspaceId,
      data: { canvas_id: place.canvasId, comment },
      ...eventActor(by),
    })
  }
  return place.visitors ? presentComment(tops[0], replies, true) : comment
}

/**
 * Deletes a comment and its replies, in one transaction: the comment first, its event (by
 * `actor`), its replies after.
 */
export async function deleteComment(
  svc: Services,
  place: CommentPlace,
  commentId: string,
  actor: Actor,
) {
  const db = svc.db
  const [deleted, recorded] = await db.batch([
    db
      .delete(comments)
      .where(
        and(
          eq(comments.canvasId, place.canvasId),
          eq(comments.commentId, commentId),
          isNull(comments.parentId),
          inArray(comments.canvasId, unexpiredCanvasId(svc, place, place.canvasId)),
        ),
      )
      .returning({ commentId: comments.commentId }),
    recordOf(svc, actor, {
      action: 'comment.deleted',
      target: { type: 'comment', id: commentId },
      details: { canvas_id: place.canvasId },
    }),
    // Only when the comment went: `changes()` counts the rows the statement before wrote, the
    // event, written only when the comment went.
    // The replies are found through their index: asked in their order, the planner takes it.
    db.delete(comments).where(
      and(
        eq(comments.canvasId, place.canvasId),
        inArray(
          comments.commentId,
          db
            .select({ id: comments.commentId })
            .from(comments)
            .where(and(eq(comments.canvasId, place.canvasId), eq(comments.parentId, commentId)))
            .orderBy(comments.createdAt),
        ),
        sql`changes() = 1`,
      ),
    ),
  ])
  if (deleted.length === 0) await throwMissing(svc, place)
  announceAudit(svc, recorded)
  svc.live?.(place.canvasId, { type: 'comment_deleted', comment_id: commentId }, 'comments')
}

/** Deletes one reply of a comment. */
export async function deleteReply(
  svc: Services,
  place: CommentPlace,
  commentId: string,
  replyId: string,
  actor: Actor,
) {
  const db = svc.db
  const [deleted, recorded, tops, replies] = await db.batch([
    db
      .delete(comments)
      .where(
        and(
          eq(comments.commentId, replyId),
          eq(comments.parentId, commentId),
          eq(comments.canvasId, place.canvasId),
          inArray(comments.canvasId, unexpiredCanvasId(svc, place, place.canvasId)),
        ),
      )
      .returning({ commentId: comments.commentId }),
    recordOf(svc, actor, {
      action: 'comment.deleted',
      target: { type: 'comment', id: replyId },
      details: { canvas_id: place.canvasId, reply_to: commentId },
    }),
    ...selectThread(svc, place, commentId),
  ])
  if (deleted.length === 0) {
    if (tops.length === 0) await throwMissing(svc, place)
    throw commentNotFound()
  }
  announceAudit(svc, recorded)
  tellViewers(svc, place, tops[0], replies)
}

/**
 * What was posted before under the same Idempotency-Key (and sender), when the post at hand is
 * that one again: the comment with its replies, or the reply (`top`) under `parentId`. The same
 * key on another post is a conflict. Null when no post holds the key: the insert failed for
 * another reason.
 */
async function postedBefore(
  svc: Services,
  place: CommentPlace,
  requestKey: string | undefined,
  parentId: string | null,
  body: string,
) {
  if (requestKey === undefined) return null
  const db = svc.db
  const byKey = and(eq(comments.canvasId, place.canvasId), eq(comments.requestKey, requestKey))
  const [found, replies] = await db.batch([
    db.select().from(comments).where(byKey),
    db
      .select()
      .from(comments)
      .where(
        and(
          eq(comments.canvasId, place.canvasId),
          inArray(
            comments.parentId,
            db.select({ id: comments.commentId }).from(comments).where(byKey),
          ),
        ),
      )
      .orderBy(asc(comments.createdAt), comments.commentId),
  ])
  const top = found[0]
  if (!top) return null
  if (top.parentId !== parentId || top.body !== body) {
    throw new AppError(
      'conflict',
      'Idempotency-Key: already used for another comment or reply; send a new key',
    )
  }
  return { top, replies }
}

/** No comment found: because there is no such canvas, or no such comment on it. */
async function throwMissing(svc: Services, place: CommentPlace): Promise<never> {
  const canvas = await selectUnexpiredCanvas(svc, place, place.canvasId).get()
  throw canvas ? commentNotFound() : canvasNotFound()
}

/**
 * Tells the canvas's viewers who may read comments of a thread as it now stands: its members as
 * members see it, a link's readers as visitors do. Answers the members' form.
 */
function tellViewers(svc: Services, place: CommentPlace, top: Row, replies: Row[]): Comment {
  const comment = presentComment(top, replies)
  svc.live?.(place.canvasId, { type: 'comment', comment }, 'comments:member')
  const shown = presentComment(top, replies, true)
  svc.live?.(place.canvasId, { type: 'comment', comment: shown }, 'comments:visitor')
  return comment
}
