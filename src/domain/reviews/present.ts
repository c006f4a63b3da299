import { inArray } from 'drizzle-orm'
import { reviewDecisions, reviews, users } from '../../storage/schema'
import { personName } from '../person-name'
import { iso, isoOrNull, type Services } from '../services'

// Reviews as the API shows them: their people named as their workspace knows them, each
// reviewer beside their decision.

export type ReviewRow = typeof reviews.$inferSelect
export type DecisionRow = typeof reviewDecisions.$inferSelect

export async function decisionsOf(svc: Services, rows: ReviewRow[]) {
  const byReview = new Map<string, DecisionRow[]>()
  if (rows.length === 0) return byReview
  const found = await svc.db
    .select()
    .from(reviewDecisions)
    .where(
      inArray(
        reviewDecisions.reviewId,
        rows.map((r) => r.reviewId),
      ),
    )
  for (const d of found) byReview.set(d.reviewId, [...(byReview.get(d.reviewId) ?? []), d])
  return byReview
}

/** Reviews as the API shows them, their people named as their workspace knows them. */
export async function presentAll(
  svc: Services,
  rows: ReviewRow[],
  decisions: Map<string, DecisionRow[]>,
) {
  const people = await namesOf(
    svc,
    rows.flatMap((row) => [
      row.requestedBy,
      ...(JSON.parse(row.reviewers) as string[]),
      ...(decisions.get(row.reviewId) ?? []).map((d) => d.userId),
    ]),
  )
  return present(rows, decisions, people)
}

/** The same, the names given (`people`: user id → name). */
export function present(
  rows: ReviewRow[],
  decisions: Map<string, DecisionRow[]>,
  people: Map<string, string>,
) {
  const nameOf = (userId: string) => people.get(userId) ?? 'a former member'
  return rows.map((row) => {
    const named = JSON.parse(row.reviewers) as string[]
    const own = decisions.get(row.reviewId) ?? []
    const deciders = own.map((d) => d.userId).filter((id) => !named.includes(id))
    const reviewer = (userId: string) => {
      const d = own.find((x) => x.userId === userId)
      return {
        user_id: userId,
        name: nameOf(userId),
        decision: d?.decision ?? null,
        decided_at: isoOrNull(d?.decidedAt ?? null),
      }
    }
    return {
      review_id: row.reviewId,
      canvas_id: row.canvasId,
      version: row.version,
      state: row.state,
      requested_by: { user_id: row.requestedBy, name: nameOf(row.requestedBy) },
      reviewers: [...named, ...deciders].map(reviewer),
      note: row.note,
      created_at: iso(row.createdAt),
      decided_at: isoOrNull(row.decidedAt),
    }
  })
}

export type Review = ReturnType<typeof present>[number]

/** Names as the workspace shows them. */
async function namesOf(svc: Services, ids: string[]) {
  const rows = await svc.db
    .select({
      userId: users.userId,
      name: personName,
    })
    .from(users)
    .where(inArray(users.userId, [...new Set(ids)]))
  return new Map(rows.map((r) => [r.userId, r.name]))
}
