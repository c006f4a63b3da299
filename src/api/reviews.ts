import { Hono } from 'hono'
import { decideReview, getReview, listReviews, requestReview } from '../domain/reviews/reviews'
import type { AppEnv } from '../http/context'
import { key } from '../http/actor/steps'
import { MEMBER, READ, WRITE } from '../http/actor/need'
import { canvasInPath } from '../schema/requests'
import {
  createReviewBody,
  decisionBody,
  reviewInPath,
  reviewWaitQuery,
} from '../schema/review-requests'
import { jsonBody, params, query } from '../http/validate'
import { listenAs, requireStillActing } from '../http/actor/listen'
import { waitForReview } from '../domain/reviews/wait'
import { database } from '../storage/db'
import { documented } from '../http/route-docs'

// Reviews (docs/reviews.md): asked of a canvas's version at /v1/canvases/:id/reviews, read and
// decided at /v1/reviews/:review_id. Asking is an editor's; deciding any member's whom the review
// lets decide (the domain says who), so the route needs only a credential that writes.
export const canvasReviews = new Hono<AppEnv>()

canvasReviews.post(
  '/',
  key(WRITE),
  params(canvasInPath),
  jsonBody(createReviewBody, { optional: true }),
  documented({
    summary: 'Request a review',
    description:
      'Asks for a review of a version (the latest unless `version` says), naming `reviewers` ' +
      '(members, by email or user id) or none, when any editor may decide it. One review may be ' +
      'pending a version.',
    tag: 'Reviews',
    responses: { 201: { description: 'The review, pending.', schema: 'review' } },
    errors: ['canvas_not_found', 'version_not_found', 'conflict'],
  }),
  async (c) => {
    const { id } = c.req.valid('param')
    return c.json(await requestReview(c.var.svc, c.var.actor, id, c.req.valid('json') ?? {}), 201)
  },
)

canvasReviews.get(
  '/',
  key(READ),
  params(canvasInPath),
  documented({
    summary: 'List a canvas’s reviews',
    tag: 'Reviews',
    responses: { 200: { description: 'Its reviews, newest first.', schema: 'reviewList' } },
    errors: ['canvas_not_found'],
  }),
  async (c) => {
    return c.json({ reviews: await listReviews(c.var.svc, c.var.actor, c.req.valid('param').id) })
  },
)

export const reviewsApi = new Hono<AppEnv>()

reviewsApi.get(
  '/:review_id',
  key(READ),
  params(reviewInPath),
  documented({
    summary: 'Get a review',
    tag: 'Reviews',
    responses: { 200: { description: 'The review and its decisions.', schema: 'review' } },
    errors: ['review_not_found'],
  }),
  async (c) => {
    return c.json(await getReview(c.var.svc, c.var.actor, c.req.valid('param').review_id))
  },
)

reviewsApi.post(
  '/:review_id/decisions',
  key(MEMBER),
  params(reviewInPath),
  jsonBody(decisionBody),
  documented({
    summary: 'Decide a review',
    description:
      'Approve or request changes: a named reviewer, or, when the review names none, an editor ' +
      'or above; never who asked. A `comment` becomes a comment on the reviewed version.',
    tag: 'Reviews',
    responses: { 201: { description: 'The review, with the decision.', schema: 'review' } },
    errors: ['review_not_found', 'conflict'],
  }),
  async (c) => {
    const { review_id } = c.req.valid('param')
    const decided = await decideReview(c.var.svc, c.var.actor, review_id, c.req.valid('json'))
    return c.json(decided, 201)
  },
)

reviewsApi.get(
  '/:review_id/wait',
  key(READ),
  params(reviewInPath),
  query(reviewWaitQuery),
  documented({
    summary: 'Wait for a review',
    description:
      'Answers the review as soon as it is decided (at once when it is already), or as it ' +
      'stands after `timeout_s` (default 30, at most 60): wait again while it is pending.',
    tag: 'Reviews',
    responses: { 200: { description: 'The review.', schema: 'review' } },
    errors: ['review_not_found'],
  }),
  async (c) => {
    const { actor } = c.var
    // Read from the primary: woken by a decision just stored, a replica may not have it yet.
    const svc = { ...c.var.svc, db: database(c.env.DB) }
    c.header('Cache-Control', 'no-store')
    const seconds = c.req.valid('query').timeout_s ?? 30
    const listen = (canvasId: string) =>
      listenAs(svc, actor, { canvasId, workspaceId: actor.workspaceId })
    const { review_id } = c.req.valid('param')
    const review = await waitForReview(svc, actor, review_id, seconds * 1000, listen)
    await requireStillActing(svc, actor)
    return c.json(review)
  },
)
