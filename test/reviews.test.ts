import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import type { Actor } from '../src/domain/actor'
import type { Role } from '../src/schema/requests'
import { decideReview, getReview, listReviews, requestReview } from '../src/domain/reviews/reviews'
import { sweep } from '../src/domain/sweep'
import { bytesOf, call, newAccount, newCanvas, upload, type Account } from './support/api'
import { realServices } from './support/state'
import { joinedAs, newTeam } from './support/teams'

// Reviews of a canvas's versions, through the domain: who may ask and decide,
// when a review is approved, and the canvas's approved version.

const svc = () => realServices()

/** The actor of `account` in `workspaceId` as `role`, as a member's session makes one. */
const actorOf = (account: Account, workspaceId: string, role: Role): Actor => ({
  userId: account.userId,
  workspaceId,
  role,
  person: { name: account.email.split('@')[0], email: account.email },
  scopes: role === 'viewer' ? ['read'] : ['read', 'write'],
  by: { kind: 'member', name: account.email },
})

/** A team with an owner, two editors and a viewer, and a canvas of three versions of the owner's. */
async function team() {
  const owner = await newAccount()
  const workspaceId = await newTeam(owner)
  const teamKey = await keyFor(owner, workspaceId)
  const canvas = await newCanvas(teamKey, 'version 1')
  for (const text of ['version 2', 'version 3']) {
    const fileId = await upload(teamKey, bytesOf(text))
    const res = await call(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'PATCH',
      key: teamKey,
      json: { file_id: fileId },
    })
    expect(res.status, await res.clone().text()).toBe(200)
  }
  const [ada, bob, vic] = await Promise.all([
    joinedAs(owner, workspaceId, 'editor'),
    joinedAs(owner, workspaceId, 'editor'),
    joinedAs(owner, workspaceId, 'viewer'),
  ])
  return {
    canvasId: canvas.canvas_id as string,
    workspaceId,
    owner: actorOf(owner, workspaceId, 'owner'),
    ada: actorOf(ada.person, workspaceId, 'editor'),
    bob: actorOf(bob.person, workspaceId, 'editor'),
    vic: actorOf(vic.person, workspaceId, 'viewer'),
    emails: { ada: ada.person.email, bob: bob.person.email, vic: vic.person.email },
  }
}

async function keyFor(owner: Account, workspaceId: string) {
  const res = await call('/auth/keys', {
    method: 'POST',
    cookie: owner.cookie,
    json: { name: 'team key', workspace_id: workspaceId },
  })
  return ((await res.json()) as { key: string }).key
}

const approvedVersion = async (canvasId: string) =>
  (
    await env.DB.prepare('SELECT approved_version AS v FROM canvases WHERE canvas_id = ?')
      .bind(canvasId)
      .first<{ v: number | null }>()
  )?.v

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => 'no refusal',
    (err: { code?: string; message?: string }) => `${err.code}: ${err.message}`,
  )

describe('a review that names reviewers', () => {
  it('is approved when every named reviewer approved, and the canvas approves its version', async () => {
    const t = await team()
    const review = await requestReview(svc(), t.owner, t.canvasId, {
      version: 2,
      reviewers: [t.emails.ada, t.bob.userId],
      note: 'the chart on page 2',
    })
    expect(review).toMatchObject({
      canvas_id: t.canvasId,
      version: 2,
      state: 'pending',
      requested_by: { user_id: t.owner.userId },
      note: 'the chart on page 2',
      decided_at: null,
    })
    expect(review.reviewers.map((r) => [r.user_id, r.decision])).toEqual([
      [t.ada.userId, null],
      [t.bob.userId, null],
    ])
    expect(await approvedVersion(t.canvasId)).toBeNull()

    const half = await decideReview(svc(), t.ada, review.review_id, { decision: 'approve' })
    expect(half.state).toBe('pending')
    expect(await approvedVersion(t.canvasId)).toBeNull()

    const whole = await decideReview(svc(), t.bob, review.review_id, {
      decision: 'approve',
      comment: 'Looks right',
    })
    expect(whole.state).toBe('approved')
    expect(whole.decided_at).not.toBeNull()
    expect(whole.reviewers.every((r) => r.decision === 'approve')).toBe(true)
    expect(await approvedVersion(t.canvasId)).toBe(2)

    // The comment is a comment on the version reviewed, by the reviewer.
    const comment = await env.DB.prepare(
      'SELECT version, body, author_user_id AS author FROM comments WHERE canvas_id = ?',
    )
      .bind(t.canvasId)
      .first()
    expect(comment).toEqual({ version: 2, body: 'Looks right', author: t.bob.userId })
  })

  it('asks for changes at the first reviewer who does, and approves nothing', async () => {
    const t = await team()
    const review = await requestReview(svc(), t.owner, t.canvasId, {
      reviewers: [t.emails.ada, t.emails.bob],
    })
    expect(review.version).toBe(3)
    const decided = await decideReview(svc(), t.ada, review.review_id, {
      decision: 'request_changes',
    })
    expect(decided.state).toBe('changes_requested')
    expect(await approvedVersion(t.canvasId)).toBeNull()
    expect(
      await refusal(decideReview(svc(), t.bob, review.review_id, { decision: 'approve' })),
    ).toBe('conflict: this review is decided already: changes requested')
  })

  it('lets no one decide who is not named, nor the one who asked, nor twice', async () => {
    const t = await team()
    const review = await requestReview(svc(), t.ada, t.canvasId, {
      reviewers: [t.emails.vic, t.emails.bob],
    })
    expect(
      await refusal(decideReview(svc(), t.owner, review.review_id, { decision: 'approve' })),
    ).toBe('forbidden: this review asks named reviewers, and you are not one of them')
    expect(
      await refusal(decideReview(svc(), t.ada, review.review_id, { decision: 'approve' })),
    ).toBe('forbidden: you asked for this review: another member decides it')
    // A viewer decides when named.
    const once = await decideReview(svc(), t.vic, review.review_id, { decision: 'approve' })
    expect(once.state).toBe('pending')
    expect(
      await refusal(decideReview(svc(), t.vic, review.review_id, { decision: 'approve' })),
    ).toBe('conflict: you decided this review already')
    const rows = await env.DB.prepare(
      'SELECT COUNT(*) AS n FROM review_decisions WHERE review_id = ?',
    )
      .bind(review.review_id)
      .first<{ n: number }>()
    expect(rows?.n).toBe(1)
  })
})

describe('a review that names no one', () => {
  it('is approved by the first editor who approves; a viewer may not decide it', async () => {
    const t = await team()
    const review = await requestReview(svc(), t.ada, t.canvasId, {})
    expect(review.reviewers).toEqual([])
    expect(
      await refusal(decideReview(svc(), t.vic, review.review_id, { decision: 'approve' })),
    ).toBe(
      'forbidden: deciding a review that names no one needs the editor role; yours in this workspace is viewer',
    )
    const decided = await decideReview(svc(), t.bob, review.review_id, { decision: 'approve' })
    expect(decided.state).toBe('approved')
    expect(decided.reviewers.map((r) => [r.user_id, r.decision])).toEqual([
      [t.bob.userId, 'approve'],
    ])
    expect(await approvedVersion(t.canvasId)).toBe(3)
  })

  it('keeps the newest approved version when an older one is approved later', async () => {
    const t = await team()
    const newer = await requestReview(svc(), t.ada, t.canvasId, { version: 3 })
    const older = await requestReview(svc(), t.ada, t.canvasId, { version: 1 })
    await decideReview(svc(), t.bob, newer.review_id, { decision: 'approve' })
    await decideReview(svc(), t.bob, older.review_id, { decision: 'approve' })
    expect(await approvedVersion(t.canvasId)).toBe(3)
  })
})

describe('bad requests change nothing', () => {
  it('refuses unknown reviewers, oneself, a missing version and a second pending review', async () => {
    const t = await team()
    const outsider = await newAccount()
    const ask = (input: Parameters<typeof requestReview>[3]) =>
      refusal(requestReview(svc(), t.ada, t.canvasId, input))
    expect(await ask({ reviewers: [outsider.email, 'nobody@example.com'] })).toBe(
      `invalid_request: reviewers: ${outsider.email}, nobody@example.com are not members of this workspace`,
    )
    expect(await ask({ reviewers: [t.ada.userId] })).toBe(
      'invalid_request: reviewers: you cannot review what you ask to be reviewed',
    )
    expect(await ask({ version: 9 })).toBe('version_not_found: version: canvas has no version 9')
    expect(
      await ask({ reviewers: Array.from({ length: 21 }, (_, i) => `p${i}@example.com`) }),
    ).toBe('invalid_request: reviewers: at most 20')
    expect(await listReviews(svc(), t.ada, t.canvasId)).toEqual([])

    await requestReview(svc(), t.ada, t.canvasId, { version: 2 })
    expect(await ask({ version: 2 })).toBe('conflict: version 2 has a review pending already')
    expect(await listReviews(svc(), t.ada, t.canvasId)).toHaveLength(1)
  })

  it('answers review_not_found for a review of another workspace, and canvas_not_found for its canvas', async () => {
    const t = await team()
    const review = await requestReview(svc(), t.ada, t.canvasId, {})
    const stranger = await newAccount()
    const theirs = actorOf(stranger, stranger.workspaceId, 'owner')
    expect(await refusal(getReview(svc(), theirs, review.review_id))).toBe(
      'review_not_found: review not found',
    )
    expect(
      await refusal(decideReview(svc(), theirs, review.review_id, { decision: 'approve' })),
    ).toBe('review_not_found: review not found')
    expect(await refusal(requestReview(svc(), theirs, t.canvasId, {}))).toBe(
      'canvas_not_found: canvas not found',
    )
    expect((await getReview(svc(), t.bob, review.review_id)).state).toBe('pending')
  })
})

describe('the record', () => {
  it('writes review.requested and review.decided to the audit log', async () => {
    const t = await team()
    const review = await requestReview(svc(), t.ada, t.canvasId, {})
    await decideReview(svc(), t.bob, review.review_id, { decision: 'request_changes' })
    const { results } = await env.DB.prepare(
      `SELECT action, actor_user_id AS who, details FROM audit_events
       WHERE workspace_id = ? AND action LIKE 'review.%' ORDER BY at, action DESC`,
    )
      .bind(t.workspaceId)
      .all<{ action: string; who: string; details: string }>()
    expect(results.map((r) => [r.action, r.who, JSON.parse(r.details)])).toEqual([
      ['review.requested', t.ada.userId, { review_id: review.review_id, version: 3, reviewers: 0 }],
      [
        'review.decided',
        t.bob.userId,
        { review_id: review.review_id, version: 3, decision: 'request_changes' },
      ],
    ])
  })

  it('goes with its canvas when the sweep removes it', async () => {
    const t = await team()
    const review = await requestReview(svc(), t.ada, t.canvasId, { reviewers: [t.emails.bob] })
    await decideReview(svc(), t.bob, review.review_id, { decision: 'approve' })
    await env.DB.prepare('UPDATE canvases SET expires_at = ? WHERE canvas_id = ?')
      .bind(Date.now() - 1000, t.canvasId)
      .run()
    await sweep(svc(), { now: Date.now() })
    const left = await env.DB.prepare(
      `SELECT (SELECT COUNT(*) FROM reviews WHERE canvas_id = ?1) +
              (SELECT COUNT(*) FROM review_decisions WHERE review_id = ?2) AS n`,
    )
      .bind(t.canvasId, review.review_id)
      .first<{ n: number }>()
    expect(left?.n).toBe(0)
  })
})
