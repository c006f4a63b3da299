import { defineCommand } from 'citty'
import { MAX_WAIT_SECONDS } from '../../src/lib/live-events'
import type { Api } from '../client'
import { usageError } from '../errors'
import { people, positiveInt, reviewId } from '../flags'
import { Formatted, note } from '../output'
import { reviewLines } from '../review'
import { begin, globalArgs, print, printJson } from '../shared'
import type { Review } from '../types'

// `svc review <canvas_id>` asks for a review of a version; `svc review --wait <review_id>` waits
// for its decision (docs/reviews.md).
export default defineCommand({
  meta: {
    name: 'review',
    description: 'Ask members to approve a version of a canvas, or wait for their decision',
  },
  args: {
    ...globalArgs,
    id: {
      type: 'positional',
      required: true,
      description: 'Canvas id (with --wait: the review id)',
    },
    to: { type: 'string', description: 'A reviewer, by email or user id (repeat, or commas)' },
    note: { type: 'string', description: 'What to look at, for the reviewers' },
    version: { type: 'string', description: 'The version to review (default: the latest)' },
    wait: { type: 'boolean', description: 'Wait for the decision on the review <id>' },
    timeout: { type: 'string', description: 'With --wait: seconds at most (default 30, ≤ 60)' },
  },
  async run({ args }) {
    const { api } = begin('review', args)
    if (args.wait) {
      if (args.to !== undefined || args.note !== undefined || args.version !== undefined) {
        throw usageError('--wait takes a review id, and --timeout only')
      }
      return waitFor(api, args)
    }
    if (args.timeout !== undefined) throw usageError('--timeout goes with --wait')
    const review = await api.request<Review>(
      `/v1/canvases/${encodeURIComponent(args.id)}/reviews`,
      {
        method: 'POST',
        json: {
          version: positiveInt(args.version, 'version'),
          reviewers: people(args.to, 'to'),
          note: args.note,
        },
      },
    )
    if (args.json) return printJson(review)
    print(new Formatted(reviewLines(review)))
    note(`to wait for the decision: svc review --wait ${review.review_id}`)
  },
})

type Args = { id: string; json?: boolean; timeout?: string }

async function waitFor(api: Api, args: Args) {
  const id = reviewId(args.id, 'review id')!
  const timeout = positiveInt(args.timeout, 'timeout', MAX_WAIT_SECONDS)
  const review = await api.request<Review>(`/v1/reviews/${id}/wait`, {
    query: { timeout_s: timeout },
  })
  if (args.json) return printJson(review)
  print(new Formatted(reviewLines(review)))
  if (review.state === 'pending') note(`still pending: svc review --wait ${id} waits again`)
}
