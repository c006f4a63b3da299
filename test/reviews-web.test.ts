import { describe, expect, it } from 'vitest'
import { call, csrfOf, formPost, json, newAccount, newCanvas, withFlash } from './support/api'
import { joinedAs } from './support/teams'

// Reviews on the web app's pages (docs/reviews.md): an editor asks from the canvas's page naming
// a member; that member's dashboard marks the canvas and its page offers Approve and Request
// changes; a link made from the share form can show the approved version, and the share list says
// which version its readers see now. Every refusal is a message on the page, nothing changed.

const post = (path: string, cookie: string, fields: [string, string][]) =>
  call(path, {
    method: 'POST',
    cookie,
    body: new URLSearchParams(fields).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  })

const page = async (path: string, cookie: string) => (await call(path, { cookie })).text()

/** The page a form's redirect lands on, with the message it left. */
const landed = async (res: Response, cookie: string) => {
  expect(res.status).toBe(303)
  return page(res.headers.get('Location')!, withFlash({ cookie }, res))
}

describe('reviews on the canvas’s page', () => {
  it('asks, marks the reviewer’s dashboard, decides, and gates a link made from the form', async () => {
    const owner = await newAccount()
    const canvas = await newCanvas(owner.key, 'first draft', { title: 'Pitch', permanent: true })
    const id = canvas.canvas_id as string
    const mate = (await joinedAs(owner, owner.workspaceId, 'editor')).person
    const ownerCsrf = await csrfOf(owner.cookie)

    // The owner's page: the Reviews section, and the way to the request form naming the members.
    const before = await page(`/c/${id}`, owner.cookie)
    expect(before).toContain('id="reviews"')
    expect(before).toContain('No version is approved yet')
    expect(before).toContain(`href="/c/${id}/review"`)
    const form = await page(`/c/${id}/review`, owner.cookie)
    expect(form).toContain(`value="${mate.userId}"`)
    expect(form).toContain(mate.email)

    // A link made to show the approved version: nothing yet, says the list.
    const shared = await call(`/c/${id}/share`, {
      ...formPost({ _csrf: ownerCsrf, version: 'approved' }),
      cookie: owner.cookie,
    })
    expect(shared.status).toBe(302)
    const links = await json(await call(`/v1/canvases/${id}/shares`, { key: owner.key }))
    expect(links.shares[0].follow).toBe('approved')
    expect(await page(`/c/${id}`, owner.cookie)).toContain('nothing yet (approved)')

    const asked = await post(`/c/${id}/reviews`, owner.cookie, [
      ['_csrf', ownerCsrf],
      ['version', '1'],
      ['reviewers', mate.userId],
      ['note', 'For the customer'],
    ])
    expect(await landed(asked, owner.cookie)).toContain('Review of version 1 requested')
    // A second request of the same version: a message, nothing asked.
    const again = await post(`/c/${id}/reviews`, owner.cookie, [['_csrf', ownerCsrf]])
    expect(await landed(again, owner.cookie)).toContain('has a review pending already')
    const { reviews } = await json(await call(`/v1/canvases/${id}/reviews`, { key: owner.key }))
    expect(reviews).toHaveLength(1)

    // The reviewer: marked on the dashboard, asked on the page; the owner is not asked.
    expect(await page('/', mate.cookie)).toContain('Waiting for your review')
    expect(await page('/', owner.cookie)).not.toContain('Waiting for your review')
    const theirs = await page(`/c/${id}`, mate.cookie)
    expect(theirs).toContain('asks for your review of v1')
    expect(theirs).toContain('For the customer')
    expect(await page(`/c/${id}`, owner.cookie)).not.toContain('asks for your review')

    const mateCsrf = await csrfOf(mate.cookie)
    const reviewId = reviews[0].review_id
    // Decided from the page of another canvas: not a review of that one, nothing decided.
    const other = await newCanvas(owner.key, 'other', { permanent: true })
    const elsewhere = await post(`/c/${other.canvas_id}/reviews/${reviewId}/decide`, mate.cookie, [
      ['_csrf', mateCsrf],
      ['decision', 'approve'],
    ])
    expect(await landed(elsewhere, mate.cookie)).toMatch(/review not found/i)
    // A decision that is none: a message, nothing decided.
    const maybe = await post(`/c/${id}/reviews/${reviewId}/decide`, mate.cookie, [
      ['_csrf', mateCsrf],
      ['decision', 'maybe'],
    ])
    expect(await landed(maybe, mate.cookie)).toContain('approve or request_changes')
    const decided = await post(`/c/${id}/reviews/${reviewId}/decide`, mate.cookie, [
      ['_csrf', mateCsrf],
      ['decision', 'approve'],
      ['comment', 'Ship it'],
    ])
    const after = await landed(decided, mate.cookie)
    expect(after).toContain('Approved: version 1')
    expect(after).not.toContain('asks for your review')
    expect(await page('/', mate.cookie)).not.toContain('Waiting for your review')
    expect(await page(`/c/${id}`, owner.cookie)).toContain('v1 (approved)')
    expect((await call(`/share/${links.shares[0].token}`)).status).toBe(200)
  })

  it('refuses a viewer’s request and a stranger’s decision without changing anything', async () => {
    const owner = await newAccount()
    const canvas = await newCanvas(owner.key, 'draft', { permanent: true })
    const id = canvas.canvas_id as string
    const viewer = (await joinedAs(owner, owner.workspaceId, 'viewer')).person
    const viewerCsrf = await csrfOf(viewer.cookie)
    const refused = await post(`/c/${id}/reviews`, viewer.cookie, [['_csrf', viewerCsrf]])
    expect(refused.status).toBe(403)
    expect((await call(`/c/${id}/review`, { cookie: viewer.cookie })).status).toBe(403)
    expect(await page(`/c/${id}`, viewer.cookie)).not.toContain(`/c/${id}/review"`)
    const ownerCsrf = await csrfOf(owner.cookie)
    await post(`/c/${id}/reviews`, owner.cookie, [['_csrf', ownerCsrf]])
    const { reviews } = await json(await call(`/v1/canvases/${id}/reviews`, { key: owner.key }))
    // Named no one: a viewer may not decide it; the page says why.
    const tried = await post(`/c/${id}/reviews/${reviews[0].review_id}/decide`, viewer.cookie, [
      ['_csrf', viewerCsrf],
      ['decision', 'approve'],
    ])
    expect(await landed(tried, viewer.cookie)).toContain('needs the editor role')
    const still = await json(await call(`/v1/reviews/${reviews[0].review_id}`, { key: owner.key }))
    expect(still.state).toBe('pending')
  })
})
