import { and, desc, eq, inArray, isNull, lt, notExists, or, sql } from 'drizzle-orm'
import { newId } from '../../lib/crypto'
import { AppError } from '../../lib/errors'
import { one } from '../../storage/db'
import { MAX_REVIEWERS, type Decision, type ReviewRequest } from '../../schema/review-requests'
import { canvases, members, reviewDecisions, reviews, users, versions } from '../../storage/schema'
import type { Actor } from '../actor'
import { announceAudit, recordOf } from '../audit/record'
import { canvasNotFound } from '../canvases/rows'
import { unexpiredCanvasOf } from '../canvases/unexpired'
import { createComment } from '../comments/comments'
import type { Services } from '../services'
import { eventActor } from '../webhooks/events'
import { personName } from '../person-name'
import { decisionRefusal } from './deciders'
import { decisionsOf, present, presentAll, type Review, type ReviewRow } from './present'

export { decisionRefusal, reviewsAwaiting } from './deciders'
export type { Review } from './present'

// Reviews of a canvas's versions: a member asks for one, naming reviewers or
// not; a named reviewer (or, when none is named, any editor) approves or asks for changes; never
// the one who asked. A review is approved when every named reviewer approved (the first approval
// when none is named) and changes_requested at the first request for changes. The canvas's
// `approved_version` is the newest version a review approved: what links that follow approval
// show.

/** Asks for a review of a version of the canvas (the latest by default). */
export async function requestReview(
  svc: Services,
  actor: Actor,
  canvasId: string,
  input: ReviewRequest,
) {
  const db = svc.db
  const now = svc.now()
  // The canvas, and whether the version asked for is one of it: one read.
  const asked = input.version
  const canvas = await db
    .select({
      version: canvases.version,
      has:
        asked === undefined ? sql<number>`1` : sql<number>`EXISTS (${versionOf(canvasId, asked)})`,
    })
    .from(canvases)
    .where(unexpiredCanvasOf(actor, canvasId, now))
    .get()
  if (!canvas) throw canvasNotFound()
  if (!canvas.has)
    throw new AppError('version_not_found', `version: canvas has no version ${asked}`)
  const version = asked ?? canvas.version
  const named = await reviewersOf(svc, actor, input.reviewers ?? [])
  const reviewers = named.map((r) => r.userId)
  const row: ReviewRow = {
    reviewId: newId(),
    canvasId,
    workspaceId: actor.workspaceId,
    version,
    state: 'pending',
    requestedBy: actor.userId,
    reviewers: JSON.stringify(reviewers),
    note: input.note ?? null,
    createdAt: now,
    decidedAt: null,
  }
  const [inserted, , recorded] = await db.batch([
    // One pending review a version (reviews_pending_idx): a second asks nothing.
    db.insert(reviews).values(row).onConflictDoNothing().returning({ reviewId: reviews.reviewId }),
    db
      .update(canvases)
      .set({ reviewCount: sql`${canvases.reviewCount} + 1` })
      .where(and(eq(canvases.canvasId, canvasId), sql`changes() > 0`)),
    recordOf(svc, actor, {
      action: 'review.requested',
      target: { type: 'canvas', id: canvasId },
      details: { review_id: row.reviewId, version, reviewers: reviewers.length },
    }),
  ])
  if (inserted.length === 0) {
    throw new AppError('conflict', `version ${version} has a review pending already`)
  }
  announceAudit(svc, recorded)
  // Everyone it names was just read, and the actor's name is known: nothing more to read.
  const people = new Map([
    [actor.userId, actor.person.name],
    ...named.map((r) => [r.userId, r.name] as const),
  ])
  const [review] = present([row], new Map(), people)
  tell(svc, actor, 'review.requested', review)
  return review
}

/** The canvas's reviews, newest first. */
export async function listReviews(svc: Services, actor: Actor, canvasId: string) {
  const db = svc.db
  const [found, rows] = await db.batch([
    db
      .select(one)
      .from(canvases)
      .where(unexpiredCanvasOf(actor, canvasId, svc.now())),
    db
      .select()
      .from(reviews)
      .where(and(eq(reviews.canvasId, canvasId), eq(reviews.workspaceId, actor.workspaceId)))
      .orderBy(desc(reviews.createdAt), desc(reviews.reviewId))
      .limit(100),
  ])
  if (found.length === 0) throw canvasNotFound()
  return presentAll(svc, rows, await decisionsOf(svc, rows))
}

/** One review of the actor's workspace, with its decisions (one read of both). */
export async function getReview(svc: Services, actor: Actor, reviewId: string) {
  const [[row], decisions] = await svc.db.batch([
    reviewRow(svc, actor, reviewId),
    svc.db.select().from(reviewDecisions).where(eq(reviewDecisions.reviewId, reviewId)),
  ])
  if (!row) throw reviewNotFound()
  const [review] = await presentAll(svc, [row], new Map([[reviewId, decisions]]))
  return review
}

/**
 * A decision on a pending review, by whom the review lets decide. Recorded, with the review's new
 * state and the canvas's approved version, in one batch whose statements each hold only while
 * the review is pending: of two decisions at once, the state follows both, whatever their order.
 */
export async function decideReview(
  svc: Services,
  actor: Actor,
  reviewId: string,
  input: Decision,
  /** The canvas the review must be of (a page of that canvas decides it), when one is named. */
  canvasId?: string,
) {
  const db = svc.db
  const row = await reviewOf(svc, actor, reviewId)
  if (canvasId !== undefined && row.canvasId !== canvasId) throw reviewNotFound()
  const named = JSON.parse(row.reviewers) as string[]
  const refusal = decisionRefusal(actor, row.requestedBy, named)
  if (refusal) throw new AppError('forbidden', refusal)
  const now = svc.now()
  const pending = and(eq(reviews.reviewId, reviewId), eq(reviews.state, 'pending'))
  const approvals = db.$count(
    reviewDecisions,
    and(eq(reviewDecisions.reviewId, reviewId), eq(reviewDecisions.decision, 'approve')),
  )
  const [added, recorded, , approved, moved] = await db.batch([
    db
      .insert(reviewDecisions)
      .select(
        db
          .select({
            reviewId: reviews.reviewId,
            userId: sql`${actor.userId}`.as('user_id'),
            decision: sql`${input.decision}`.as('decision'),
            commentId: sql`NULL`.as('comment_id'),
            decidedAt: sql`${now}`.as('decided_at'),
          })
          .from(reviews)
          .where(pending),
      )
      .onConflictDoNothing()
      .returning({ userId: reviewDecisions.userId }),
    // Written only with the decision (changes() of the insert); so is the request for changes.
    recordOf(svc, actor, {
      action: 'review.decided',
      target: { type: 'canvas', id: row.canvasId },
      details: { review_id: reviewId, version: row.version, decision: input.decision },
    }),
    db
      .update(reviews)
      .set({ state: 'changes_requested', decidedAt: now })
      .where(and(pending, sql`${input.decision} = 'request_changes'`, sql`changes() > 0`)),
    db
      .update(reviews)
      .set({ state: 'approved', decidedAt: now })
      .where(
        and(
          pending,
          sql`${input.decision} = 'approve'`,
          sql`${approvals} >= max(1, json_array_length(${reviews.reviewers}))`,
        ),
      )
      .returning({ version: reviews.version }),
    // The newest approved version: an older one approved later leaves it as it is.
    db
      .update(canvases)
      .set({ approvedVersion: row.version })
      .where(
        and(
          eq(canvases.canvasId, row.canvasId),
          sql`changes() > 0`,
          or(isNull(canvases.approvedVersion), lt(canvases.approvedVersion, row.version)),
        ),
      )
      .returning({ version: canvases.approvedVersion }),
  ])
  if (added.length === 0) throw await whyNotDecided(svc, actor, reviewId)
  announceAudit(svc, recorded)
  // Everyone the decision concerns hears of it before its comment is written: the decision
  // stands whatever becomes of the comment.
  const review = await getReview(svc, actor, reviewId)
  if (review.state === 'approved' && approved.length > 0)
    tell(svc, actor, 'review.approved', review)
  // The readers of what follows approval move now, and only now.
  if (moved.length > 0) svc.live?.(row.canvasId, { type: 'approved', version: row.version })
  // Whoever waits for the review (wait.ts) looks again.
  svc.live?.(row.canvasId, { type: 'review', review_id: reviewId })
  if (review.state === 'changes_requested' && input.decision === 'request_changes') {
    tell(svc, actor, 'review.changes_requested', review)
  }
  if (input.comment !== undefined) await commentOn(svc, actor, row, input.comment)
  return review
}

/** Why a decision was not recorded: the review was decided, or this person decided already. */
async function whyNotDecided(svc: Services, actor: Actor, reviewId: string) {
  const row = await reviewOf(svc, actor, reviewId)
  if (row.state !== 'pending') {
    return new AppError(
      'conflict',
      `this review is decided already: ${row.state.replace('_', ' ')}`,
    )
  }
  return new AppError('conflict', 'you decided this review already')
}

/**
 * The comment given with a decision: a comment on the reviewed version, by the member. Refused
 * (the canvas holds as many comments as it may), it is said so, the decision standing.
 */
async function commentOn(svc: Services, actor: Actor, row: ReviewRow, body: string) {
  const place = { workspaceId: actor.workspaceId, canvasId: row.canvasId }
  const author = {
    name: actor.by.name,
    kind: 'member' as const,
    userId: actor.userId,
    by: actor.by,
  }
  const comment = await createComment(svc, place, author, { body, version: row.version }).catch(
    (err: unknown) => {
      if (!(err instanceof AppError)) throw err
      throw new AppError(
        err.code,
        `your decision is recorded, but its comment was not added: ${err.message}`,
      )
    },
  )
  await svc.db
    .update(reviewDecisions)
    .set({ commentId: comment.comment_id })
    .where(
      and(eq(reviewDecisions.reviewId, row.reviewId), eq(reviewDecisions.userId, actor.userId)),
    )
}

/** The review's row, when it is of the actor's workspace (a statement, for a batch). */
const reviewRow = (svc: Services, actor: Actor, reviewId: string) =>
  svc.db
    .select()
    .from(reviews)
    .where(and(eq(reviews.reviewId, reviewId), eq(reviews.workspaceId, actor.workspaceId)))

const reviewNotFound = () => new AppError('review_not_found', 'review not found')

/** The review, when it is of the actor's workspace; else 404 review_not_found. */
async function reviewOf(svc: Services, actor: Actor, reviewId: string) {
  const row = await reviewRow(svc, actor, reviewId).get()
  if (!row) throw reviewNotFound()
  return row
}

/** The version `version` of the canvas, as a subquery. */
const versionOf = (canvasId: string, version: number) =>
  sql`SELECT 1 FROM ${versions} WHERE ${versions.canvasId} = ${canvasId} AND ${versions.version} = ${version}`

/**
 * The members `named` names, by email or user id, as user ids (each once). Anyone else is a 400:
 * a review waits on its reviewers, and one who cannot see the canvas would keep it waiting.
 */
async function reviewersOf(svc: Services, actor: Actor, named: string[]) {
  const wanted = [...new Set(named.map((n) => (n.includes('@') ? n.trim().toLowerCase() : n)))]
  if (wanted.length > MAX_REVIEWERS) {
    throw new AppError('invalid_request', `reviewers: at most ${MAX_REVIEWERS}`)
  }
  if (wanted.length === 0) return []
  const rows = await svc.db
    .select({ userId: members.userId, email: users.email, name: personName })
    .from(members)
    .innerJoin(users, eq(users.userId, members.userId))
    .where(
      and(
        eq(members.workspaceId, actor.workspaceId),
        or(inArray(users.email, wanted), inArray(members.userId, wanted)),
      ),
    )
  const found = wanted.map((w) => rows.find((r) => r.email === w || r.userId === w))
  const unknown = wanted.filter((_, i) => found[i] === undefined)
  if (unknown.length > 0) {
    throw new AppError(
      'invalid_request',
      `reviewers: ${unknown.join(', ')} ${unknown.length === 1 ? 'is not a member' : 'are not members'} of this workspace`,
    )
  }
  if (found.some((r) => r!.userId === actor.userId)) {
    throw new AppError(
      'invalid_request',
      'reviewers: you cannot review what you ask to be reviewed',
    )
  }
  // An email and an id of one person are one reviewer.
  return [...new Map(found.map((r) => [r!.userId, { userId: r!.userId, name: r!.name }])).values()]
}

function tell(
  svc: Services,
  actor: Actor,
  type: 'review.requested' | 'review.approved' | 'review.changes_requested',
  review: Review,
) {
  svc.events?.({ type, workspaceId: actor.workspaceId, data: review, ...eventActor(actor.by) })
}

/**
 * For the sweep's batch, after the statement that removed the canvas: its reviews and their
 * decisions, once it is gone (one made permanent meanwhile keeps its reviews). Only for a canvas
 * that has some (`review_count`): one without reads nothing more.
 */
export function reviewsOfRemovedCanvas(svc: Services, canvasId: string) {
  const db = svc.db
  const gone = and(
    eq(reviews.canvasId, canvasId),
    notExists(db.select(one).from(canvases).where(eq(canvases.canvasId, canvasId))),
  )
  return [
    db
      .delete(reviewDecisions)
      .where(
        inArray(
          reviewDecisions.reviewId,
          db.select({ reviewId: reviews.reviewId }).from(reviews).where(gone),
        ),
      ),
    db.delete(reviews).where(gone),
  ] as const
}
