import { READ, WRITE } from '../http/actor/need'
import { listenAs, requireStillActing } from '../http/actor/listen'
import { getReview, requestReview } from '../domain/reviews/reviews'
import { waitForReview } from '../domain/reviews/wait'
import * as output from '../schema/tool-outputs'
import * as input from '../schema/tools'
import { tool } from './mcp-tool'

// Reviews over MCP (docs/reviews.md): an agent asks people to approve what it published, and
// waits for their decision; only people decide, in the browser or the CLI.

export const REVIEW_TOOLS = [
  tool({
    name: 'request_review',
    title: 'Request a review',
    description:
      'Ask people to approve a version of a canvas (default: the latest) before the readers of ' +
      'links that follow approval see it. Name `reviewers` (members, by email) or none (any ' +
      'editor may approve). Then wait_for_review with the answer’s review_id.',
    input: input.requestReviewInput,
    output: output.review,
    need: WRITE,
    effect: { destructive: false, idempotent: false },
    run: async (ctx, { canvas_id, ...request }) =>
      requestReview(ctx.svc, ctx.actor, canvas_id, request),
  }),
  tool({
    name: 'get_review',
    title: 'Get a review',
    description:
      'A review as it stands: `state` pending, approved or changes_requested, and each ' +
      'reviewer’s decision. Their comments are the canvas’s comments on that version (list_comments).',
    input: input.reviewInput,
    output: output.review,
    need: READ,
    run: async (ctx, { review_id }) => getReview(ctx.svc, ctx.actor, review_id),
  }),
  tool({
    name: 'wait_for_review',
    title: 'Wait for a review',
    description:
      'Waits until the review is decided and answers it at once (approved, or changes_requested: ' +
      'then read the comments on that version, publish a new one and request_review again); or ' +
      'answers it still pending at `timeout_s` (default 30, at most 60): call again to keep waiting.',
    input: input.waitForReviewInput,
    output: output.review,
    need: READ,
    run: async (ctx, { review_id, timeout_s: seconds }) => {
      const { actor, primary } = ctx
      const listen = (canvasId: string) =>
        listenAs(primary, actor, { canvasId, workspaceId: actor.workspaceId })
      const review = await waitForReview(primary, actor, review_id, (seconds ?? 30) * 1000, listen)
      await requireStillActing(primary, actor)
      return review
    },
  }),
]
