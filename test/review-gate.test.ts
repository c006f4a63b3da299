import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  browse,
  formPost,
  bytesOf,
  call,
  json,
  newAccount,
  newCanvas,
  upload,
  type Account,
} from './support/api'
import { heard, liveLinkOf, open } from './support/live'
import { runs } from './support/runs'
import { joinedAs, keyIn } from './support/teams'

// Approval gates what readers see (docs/reviews.md): a link that follows approval, and every link
// and public page of a workspace that requires review, show the newest approved version, nothing
// before one, and move when a version is approved, not when one is pushed.

/** The owner's personal workspace, an editor of it who reviews, and a canvas of one version. */
async function team() {
  const owner = await newAccount()
  const canvas = await newCanvas(owner.key, 'draft 1', { permanent: true })
  const reviewer = await joinedAs(owner, owner.workspaceId, 'editor')
  return {
    owner,
    canvasId: canvas.canvas_id as string,
    reviewerKey: await keyIn(reviewer.person, owner.workspaceId),
  }
}

type Team = Awaited<ReturnType<typeof team>>

async function push(owner: Account, canvasId: string, text: string) {
  const fileId = await upload(owner.key, bytesOf(text))
  const res = await call(`/v1/canvases/${canvasId}`, {
    method: 'PATCH',
    key: owner.key,
    json: { file_id: fileId },
  })
  expect(res.status).toBe(200)
  return (await json(res)).version as number
}

/** Asks for a review of `version` and approves it, as the reviewer. */
async function approve(t: Team, version: number) {
  const asked = await call(`/v1/canvases/${t.canvasId}/reviews`, {
    method: 'POST',
    key: t.owner.key,
    json: { version },
  })
  expect(asked.status).toBe(201)
  const { review_id } = await json(asked)
  const res = await call(`/v1/reviews/${review_id}/decisions`, {
    method: 'POST',
    key: t.reviewerKey,
    json: { decision: 'approve' },
  })
  expect(res.status).toBe(201)
}

const link = async (t: Team, body: object) => {
  const res = await call(`/v1/canvases/${t.canvasId}/shares`, {
    method: 'POST',
    key: t.owner.key,
    json: body,
  })
  expect(res.status, await res.clone().text()).toBe(201)
  return json(res)
}

/** What the link shows now: its version, or the code it is refused with. */
async function shown(token: string) {
  const res = await call(`/share/${token}`)
  const body = await json(res)
  return res.status === 200 ? body.canvas.version : body.error.code
}

describe('a link that follows approval', () => {
  it('answers not_approved before any approval, then the newest approved version only', async () => {
    const t = await team()
    const share = await link(t, { follow: 'approved' })
    expect(share).toMatchObject({ follow: 'approved', version: null })
    expect(await shown(share.token)).toBe('not_approved')
    const content = await call(`/share/${share.token}/content`)
    expect(content.status).toBe(409)
    const page = await browse(`/s/${share.token}`)
    expect(page.status).toBe(409)
    expect(await page.text()).toContain('Awaiting review')
    // Refused opens are no views.
    const listed = await json(await call(`/v1/canvases/${t.canvasId}/shares`, { key: t.owner.key }))
    expect(listed.shares[0].view_count).toBe(0)

    await approve(t, 1)
    expect(await shown(share.token)).toBe(1)
    await push(t.owner, t.canvasId, 'draft 2')
    expect(await shown(share.token)).toBe(1)
    await approve(t, 2)
    expect(await shown(share.token)).toBe(2)
    // An older version approved later leaves the newest in place.
    const three = await push(t.owner, t.canvasId, 'draft 3')
    expect(three).toBe(3)
    expect(await shown(share.token)).toBe(2)
    // A link that follows the latest shows the draft.
    expect(await shown((await link(t, {})).token)).toBe(3)
  })

  it('says on its page that it awaits review, and that page hears the first approval live', async () => {
    const t = await team()
    const share = await link(t, { follow: 'approved' })
    const page = await browse(`/s/${share.token}`)
    expect(page.status).toBe(409)
    const html = await page.text()
    expect(html).toContain('Awaiting review')
    const live = /data-live="([^"]+)"/.exec(html)![1].replaceAll('&amp;', '&')
    const socket = await open(live)
    // Nothing to catch up on: no version is approved.
    await new Promise((r) => setTimeout(r, 200))
    expect(socket.messages).toEqual([])
    await push(t.owner, t.canvasId, 'draft 2')
    await new Promise((r) => setTimeout(r, 200))
    expect(socket.messages).toEqual([])
    await approve(t, 2)
    expect(await heard(socket, 1)).toEqual([{ type: 'version', version: 2 }])
    socket.socket.close(1000)
    // Opened again, the page shows the approved version.
    const again = await browse(`/s/${share.token}`)
    expect(again.status).toBe(200)
    expect(await again.text()).toContain('data-version="2"')
  })

  it('pins no version: both at once is a 400', async () => {
    const t = await team()
    const res = await call(`/v1/canvases/${t.canvasId}/shares`, {
      method: 'POST',
      key: t.owner.key,
      json: { follow: 'approved', version: 1 },
    })
    expect(res.status).toBe(400)
    expect((await json(res)).error.message).toMatch(/follows approval pins no version/)
  })

  it('moves its live page when a version is approved, not when one is pushed', async () => {
    const t = await team()
    await approve(t, 1)
    const share = await link(t, { follow: 'approved' })
    const latest = await link(t, {})
    const gated = await open((await liveLinkOf(`/s/${share.token}`))!)
    const follower = await open((await liveLinkOf(`/s/${latest.token}`))!)
    expect(await heard(gated, 1)).toEqual([{ type: 'version', version: 1 }])
    expect(await heard(follower, 1)).toEqual([{ type: 'version', version: 1 }])
    await push(t.owner, t.canvasId, 'draft 2')
    expect(await heard(follower, 2)).toEqual([
      { type: 'version', version: 1 },
      { type: 'version', version: 2 },
    ])
    // Pushed, not approved: the gated page heard nothing (the other heard it at once).
    expect(gated.messages).toEqual([{ type: 'version', version: 1 }])
    await approve(t, 2)
    expect(await heard(gated, 2)).toEqual([
      { type: 'version', version: 1 },
      { type: 'version', version: 2 },
    ])
    // The approval is no new version for a page that follows the latest.
    await new Promise((r) => setTimeout(r, 200))
    expect(follower.messages).toHaveLength(2)
    // Its frame route serves the approved version.
    const frame = await json(
      await call(`${(await liveLinkOf(`/s/${share.token}`))!.replace('?', '/frame?')}`),
    )
    expect(frame.version).toBe(2)
    for (const live of [gated, follower]) live.socket.close(1000)
  })
})

describe('a workspace that requires review', () => {
  it('behind its password, says it awaits review only to whom gave the password', async () => {
    const t = await team()
    const share = await link(t, { follow: 'approved', password: 'open sesame' })
    const asked = await browse(`/s/${share.token}`)
    expect(asked.status).toBe(401)
    expect(await asked.text()).not.toContain('Awaiting review')
    // The password given, the waiting page comes by a GET (its reload posts nothing again).
    const page = await browse(`/s/${share.token}`, formPost({ password: 'open sesame' }))
    expect(page.status).toBe(409)
    expect(await page.text()).toContain('Awaiting review')
  })

  it('gates every link and its public pages; only admins change it', async () => {
    const t = await team()
    const latest = await link(t, { allow_comments: true })
    const pinned = await link(t, { version: 1 })
    const reader = await open((await liveLinkOf(`/s/${latest.token}`))!)
    const visibility = await call(`/v1/canvases/${t.canvasId}`, {
      method: 'PATCH',
      key: t.owner.key,
      json: { visibility: 'public' },
    })
    expect(visibility.status).toBe(200)
    const settings = `/v1/workspaces/${t.owner.workspaceId}`
    const byEditor = await call(settings, {
      method: 'PATCH',
      key: t.reviewerKey,
      json: { require_review: true },
    })
    expect(byEditor.status).toBe(403)
    const set = await call(settings, {
      method: 'PATCH',
      key: t.owner.key,
      json: { require_review: true },
    })
    expect(set.status).toBe(200)
    expect((await json(set)).require_review).toBe(true)
    // An open reader's page reconnects, to hear only what the setting lets it.
    expect((await reader.closed).code).toBe(1012)

    expect(await shown(latest.token)).toBe('not_approved')
    expect(await shown(pinned.token)).toBe('not_approved')
    const page = await browse(`/c/${t.canvasId}`)
    expect(page.status).toBe(409)
    expect((await browse(`/c/${t.canvasId}/download`)).status).toBe(409)

    await approve(t, 1)
    await push(t.owner, t.canvasId, 'draft 2')
    expect(await shown(latest.token)).toBe(1)
    const publicPage = await browse(`/c/${t.canvasId}`)
    expect(publicPage.status).toBe(200)
    expect(await publicPage.text()).toContain(`data-version="1"`)

    const unset = await call(settings, {
      method: 'PATCH',
      key: t.owner.key,
      json: { require_review: false },
    })
    expect((await json(unset)).require_review).toBe(false)
    expect(await shown(latest.token)).toBe(2)
    expect(await shown(pinned.token)).toBe(1)
  })
})

describe('interleavings of pushes, reviews and reads', () => {
  type Step =
    | { kind: 'push' }
    | { kind: 'review'; back: number; decision: 'approve' | 'request_changes' }
    | { kind: 'read' }
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.constant({ kind: 'push' as const }),
    fc.record({
      kind: fc.constant('review' as const),
      back: fc.nat({ max: 2 }),
      decision: fc.constantFrom('approve' as const, 'request_changes' as const),
    }),
    fc.constant({ kind: 'read' as const }),
  )

  it('never shows a reader of a follow-approved link a version not approved at the read', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 10 }), async (steps) => {
        const t = await team()
        const share = await link(t, { follow: 'approved' })
        let latest = 1
        const approved = new Set<number>()
        for (const s of steps) {
          if (s.kind === 'push') latest = await push(t.owner, t.canvasId, `draft ${latest + 1}`)
          if (s.kind === 'review') {
            const version = Math.max(1, latest - s.back)
            const asked = await call(`/v1/canvases/${t.canvasId}/reviews`, {
              method: 'POST',
              key: t.owner.key,
              json: { version },
            })
            // A version with a review pending already: the contract's 409, nothing asked.
            if (asked.status === 409) continue
            expect(asked.status).toBe(201)
            const { review_id } = await json(asked)
            const res = await call(`/v1/reviews/${review_id}/decisions`, {
              method: 'POST',
              key: t.reviewerKey,
              json: { decision: s.decision },
            })
            expect(res.status).toBe(201)
            if (s.decision === 'approve') approved.add(version)
          }
          const seen = await shown(share.token)
          const newest = approved.size === 0 ? 'not_approved' : Math.max(...approved)
          expect(seen).toEqual(newest)
        }
      }),
      { numRuns: runs(6) },
    )
  }, 120_000)
})
