import { reviewId } from './flags'
import { Formatted } from './output'
import { reviewLines } from './review'
import { begin, print, printJson } from './shared'
import type { Review } from './types'

// `svc approve` and `svc request-changes`: a decision on a review, with a comment that becomes a
// comment on the reviewed version.

type Args = { review_id: string; comment?: string; json?: boolean }

export async function decide(
  command: string,
  decision: 'approve' | 'request_changes',
  args: Args & Record<string, unknown>,
) {
  const { api } = begin(command, args)
  const id = reviewId(args.review_id, 'review_id')!
  const review = await api.request<Review>(`/v1/reviews/${id}/decisions`, {
    method: 'POST',
    json: { decision, comment: args.comment },
  })
  if (args.json) return printJson(review)
  print(new Formatted(reviewLines(review)))
}
