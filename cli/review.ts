import { visible } from './output'
import type { Review } from './types'
import { ago } from './when'

// A review as a person reads it in a terminal: its state, the version, who asked, and each
// reviewer's decision (svc review, approve, request-changes).

const STATE: Record<Review['state'], string> = {
  pending: 'pending',
  approved: 'approved',
  changes_requested: 'changes requested',
}

const DECISION = { approve: 'approved', request_changes: 'asked for changes' } as const

export function reviewLines(review: Review): string {
  const head = `review ${review.review_id}: version ${review.version} of ${review.canvas_id}, ${STATE[review.state]}`
  const lines = [
    visible(head),
    visible(`  asked by ${review.requested_by.name} ${ago(review.created_at)}`),
  ]
  if (review.note) lines.push(visible(`  note: ${review.note}`))
  if (review.reviewers.length === 0 && review.state === 'pending') {
    lines.push('  any editor may approve it')
  }
  for (const r of review.reviewers) {
    const said = r.decision ? `${DECISION[r.decision]} ${ago(r.decided_at!)}` : 'not yet'
    lines.push(visible(`  ${r.name}: ${said}`))
  }
  return lines.join('\n')
}
