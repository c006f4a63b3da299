import * as z from 'zod/mini'
import {
  waitSeconds,
  MAX_COMMENT_LENGTH,
  anyIdInPath,
  noControl,
  versionNumber,
  wholeCharacters,
} from './requests'

// What reviews are asked and decided with (docs/reviews.md). Apart from requests.ts: only the
// review routes, tools and pages load them.

/** How many reviewers a review may name: a team's, not a mailing list's. */
export const MAX_REVIEWERS = 20
export const MAX_REVIEW_NOTE = 2_000

const freeText = (max: number) =>
  z
    .string()
    .check(
      z.minLength(1, 'must not be empty'),
      z.maxLength(max, `must be at most ${max} characters`),
      wholeCharacters,
    )

/** A member, by their email or their user id; whether they are one is the domain's to say. */
const reviewer = z
  .string()
  .check(
    z.minLength(1, 'must not be empty'),
    z.maxLength(254, 'must be at most 254 characters'),
    z.refine(noControl, 'must not contain control characters'),
    wholeCharacters,
  )

export const reviewerList = z
  .array(reviewer)
  .check(z.maxLength(MAX_REVIEWERS, `must name at most ${MAX_REVIEWERS} reviewers`))
export const reviewNote = freeText(MAX_REVIEW_NOTE)

export const createReviewBody = z.strictObject({
  version: z.optional(versionNumber),
  reviewers: z.optional(reviewerList),
  note: z.optional(reviewNote),
})

export const DECISIONS = ['approve', 'request_changes'] as const
export const decisionBody = z.strictObject({
  decision: z.enum(DECISIONS, 'must be approve or request_changes'),
  comment: z.optional(freeText(MAX_COMMENT_LENGTH)),
})

export const reviewInPath = z.object({ review_id: anyIdInPath })
/** A review on its canvas's page (/c/:id/reviews/:review_id/...). */
export const canvasReviewInPath = z.object({ id: anyIdInPath, review_id: anyIdInPath })

export const reviewWaitQuery = z.object({ timeout_s: z.optional(waitSeconds) })

export type ReviewRequest = z.output<typeof createReviewBody>
export type Decision = z.output<typeof decisionBody>
