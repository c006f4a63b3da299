import { describe, expect, it } from 'vitest'
import { bytesOf, call, json, newAccount, newCanvas, upload } from './support/api'
import { joinedAs, keyIn, newTeam } from './support/teams'
import { snapshot } from './support/state'
import { connect, fails, ok } from './support/mcp'

// The review routes (docs/reviews.md): asking, listing, reading and deciding over HTTP, each
// refusal with its status and code, and the canvas's approved_version as its JSON shows it.

/** A team: its owner's key, an editor's and a viewer's, and a canvas of two versions. */
async function team() {
  const owner = await newAccount()
  const workspaceId = await newTeam(owner)
  const ownerKey = await keyIn(owner, workspaceId)
  const canvas = await newCanvas(ownerKey, 'draft one')
  const fileId = await upload(ownerKey, bytesOf('draft two'))
  const patched = await call(`/v1/canvases/${canvas.canvas_id}`, {
    method: 'PATCH',
    key: ownerKey,
    json: { file_id: fileId },
  })
  expect(patched.status).toBe(200)
  const editor = await joinedAs(owner, workspaceId, 'editor')
  const second = await joinedAs(owner, workspaceId, 'editor')
  const viewer = await joinedAs(owner, workspaceId, 'viewer')
  return {
    workspaceId,
    canvasId: canvas.canvas_id as string,
    owner: { key: ownerKey, account: owner },
    editor: { key: await keyIn(editor.person, workspaceId), account: editor.person },
    second: { key: await keyIn(second.person, workspaceId), account: second.person },
    viewer: {
      key: await keyIn(viewer.person, workspaceId, 'reads', ['read']),
      account: viewer.person,
    },
  }
}

const ask = (key: string, canvasId: string, body?: unknown) =>
  call(`/v1/canvases/${canvasId}/reviews`, { method: 'POST', key, json: body })
const decide = (key: string, reviewId: string, body: unknown) =>
  call(`/v1/reviews/${reviewId}/decisions`, { method: 'POST', key, json: body })

async function refused(res: Response, status: number, code: string, message?: RegExp) {
  const text = await res.text()
  expect(res.status, text).toBe(status)
  const { error } = JSON.parse(text)
  expect(error.code).toBe(code)
  if (message) expect(error.message).toMatch(message)
}

describe('the review routes', () => {
  it('asks a named reviewer, lists, reads and approves; the canvas shows the approved version', async () => {
    const t = await team()
    const before = await json(await call(`/v1/canvases/${t.canvasId}`, { key: t.owner.key }))
    expect(before.approved_version).toBeNull()

    const asked = await ask(t.owner.key, t.canvasId, {
      version: 1,
      reviewers: [t.editor.account.email.toUpperCase()],
      note: 'Ready for a look',
    })
    expect(asked.status).toBe(201)
    const review = await json(asked)
    expect(review).toMatchObject({
      canvas_id: t.canvasId,
      version: 1,
      state: 'pending',
      requested_by: { user_id: t.owner.account.userId },
      reviewers: [{ user_id: t.editor.account.userId, decision: null, decided_at: null }],
      note: 'Ready for a look',
      decided_at: null,
    })

    const listed = await json(
      await call(`/v1/canvases/${t.canvasId}/reviews`, { key: t.viewer.key }),
    )
    expect(listed.reviews.map((r: { review_id: string }) => r.review_id)).toEqual([
      review.review_id,
    ])
    const read = await call(`/v1/reviews/${review.review_id}`, { key: t.viewer.key })
    expect(read.status).toBe(200)
    expect(await json(read)).toEqual(review)

    const decided = await decide(t.editor.key, review.review_id, {
      decision: 'approve',
      comment: 'Good to go',
    })
    expect(decided.status).toBe(201)
    const approved = await json(decided)
    expect(approved.state).toBe('approved')
    expect(approved.reviewers[0].decision).toBe('approve')
    expect(approved.decided_at).not.toBeNull()

    const canvas = await json(await call(`/v1/canvases/${t.canvasId}`, { key: t.owner.key }))
    expect(canvas.approved_version).toBe(1)
    const list = await json(await call('/v1/canvases', { key: t.owner.key }))
    expect(list.canvases[0].approved_version).toBe(1)
    // The decision's comment is a comment on the reviewed version, by the reviewer.
    const comments = await json(
      await call(`/v1/canvases/${t.canvasId}/comments?version=1`, { key: t.owner.key }),
    )
    expect(comments.comments.map((c: { body: string }) => c.body)).toEqual(['Good to go'])
  })

  it('defaults to the latest version, and asks for changes at the first who does', async () => {
    const t = await team()
    const review = await json(await ask(t.owner.key, t.canvasId))
    expect(review.version).toBe(2)
    expect(review.reviewers).toEqual([])
    const res = await decide(t.editor.key, review.review_id, {
      decision: 'request_changes',
      comment: 'The chart is upside down',
    })
    expect(res.status).toBe(201)
    expect((await json(res)).state).toBe('changes_requested')
    const canvas = await json(await call(`/v1/canvases/${t.canvasId}`, { key: t.owner.key }))
    expect(canvas.approved_version).toBeNull()
  })
})

describe('refusals change nothing', () => {
  it('answers each bad request with its status and code', async () => {
    const t = await team()
    const outsider = await newAccount()
    const review = await json(
      await ask(t.editor.key, t.canvasId, { reviewers: [t.viewer.account.userId] }),
    )
    const unnamed = await json(await ask(t.editor.key, t.canvasId, { version: 1 }))
    const before = await snapshot(t.workspaceId)

    await refused(
      await ask(t.owner.key, t.canvasId, { reviewers: [outsider.email] }),
      400,
      'invalid_request',
      /is not a member/,
    )
    await refused(
      await ask(t.owner.key, t.canvasId, { reviewers: ['x'.repeat(255)] }),
      400,
      'invalid_request',
      /at most 254/,
    )
    await refused(await ask(t.owner.key, t.canvasId, { version: 9 }), 404, 'version_not_found')
    await refused(await ask(t.owner.key, t.canvasId, { wat: 1 }), 400, 'invalid_request')
    await refused(await ask(t.owner.key, t.canvasId), 409, 'conflict', /pending already/)
    await refused(await ask(t.viewer.key, t.canvasId), 403, 'forbidden', /editor role/)
    await refused(await ask(outsider.key, t.canvasId), 404, 'canvas_not_found')

    await refused(
      await decide(t.editor.key, review.review_id, { decision: 'approve' }),
      403,
      'forbidden',
      /another member decides/,
    )
    await refused(
      await decide(t.owner.key, review.review_id, { decision: 'approve' }),
      403,
      'forbidden',
      /named reviewers/,
    )
    // A viewer decides only when named, and then in the browser: their keys only read.
    await refused(
      await decide(t.viewer.key, unnamed.review_id, { decision: 'approve' }),
      403,
      'forbidden',
    )
    await refused(
      await decide(t.viewer.key, review.review_id, { decision: 'approve' }),
      403,
      'forbidden',
    )
    await refused(
      await decide(t.owner.key, unnamed.review_id, { decision: 'maybe' }),
      400,
      'invalid_request',
      /approve or request_changes/,
    )
    await refused(
      await decide(outsider.key, review.review_id, { decision: 'approve' }),
      404,
      'review_not_found',
    )
    await refused(await call('/v1/reviews/nope', { key: t.owner.key }), 404, 'review_not_found')
    await refused(
      await call(`/v1/reviews/${review.review_id}`, { key: outsider.key }),
      404,
      'review_not_found',
    )
    expect(await snapshot(t.workspaceId)).toEqual(before)
  })

  it('refuses a decision on a decided review, and a second by the same person', async () => {
    const t = await team()
    const named = await json(
      await ask(t.owner.key, t.canvasId, {
        reviewers: [t.editor.account.email, t.second.account.userId],
      }),
    )
    expect((await decide(t.editor.key, named.review_id, { decision: 'approve' })).status).toBe(201)
    await refused(
      await decide(t.editor.key, named.review_id, { decision: 'approve' }),
      409,
      'conflict',
      /decided this review already/,
    )
    expect(
      (await decide(t.second.key, named.review_id, { decision: 'request_changes' })).status,
    ).toBe(201)
    await refused(
      await decide(t.second.key, named.review_id, { decision: 'approve' }),
      409,
      'conflict',
      /decided already: changes requested/,
    )
  })
})

describe('waiting for a review', () => {
  it('answers an agent’s wait, over MCP and HTTP, as soon as a person decides', async () => {
    const t = await team()
    const agent = await connect(t.owner.key)
    const review = await ok(agent, 'request_review', {
      canvas_id: t.canvasId,
      reviewers: [t.editor.account.email],
      note: 'Please approve',
    })
    expect(review).toMatchObject({ state: 'pending', version: 2, note: 'Please approve' })
    await fails(agent, 'request_review', { canvas_id: t.canvasId }, 'conflict')
    await fails(agent, 'get_review', { review_id: 'nope' }, 'review_not_found')
    // Pending at its timeout: answered as it stands.
    const pending = await ok(agent, 'wait_for_review', {
      review_id: review.review_id,
      timeout_s: 1,
    })
    expect(pending.state).toBe('pending')

    const started = Date.now()
    const waiting = ok(agent, 'wait_for_review', { review_id: review.review_id, timeout_s: 60 })
    const overHttp = call(`/v1/reviews/${review.review_id}/wait?timeout_s=60`, {
      key: t.owner.key,
    })
    await new Promise((r) => setTimeout(r, 300))
    const decided = await decide(t.editor.key, review.review_id, { decision: 'approve' })
    expect(decided.status).toBe(201)
    expect((await waiting).state).toBe('approved')
    const http = await overHttp
    expect(http.status).toBe(200)
    expect((await json(http)).state).toBe('approved')
    // Woken by the decision, not by the timeout.
    expect(Date.now() - started).toBeLessThan(30_000)
    // A decided review is answered at once.
    expect((await ok(agent, 'get_review', { review_id: review.review_id })).state).toBe('approved')
    await agent.close()
  })

  it('refuses a wait of more than 60 seconds', async () => {
    const t = await team()
    const review = await json(await ask(t.owner.key, t.canvasId))
    await refused(
      await call(`/v1/reviews/${review.review_id}/wait?timeout_s=61`, { key: t.owner.key }),
      400,
      'invalid_request',
      /from 1 to 60/,
    )
  })
})
