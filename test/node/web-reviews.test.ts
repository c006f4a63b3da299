import { afterAll, beforeAll, expect, it } from 'vitest'
import { schemeViolations } from './support/axe'
import { launchBrowser, type Person } from './support/browser'
import { newDevAccount, sharedDevServer, SETUP_MS } from './support/dev-server'
import { callApi } from './support/api.ts'

// Reviews in real Chromium against a real `wrangler dev` (docs/reviews.md): an agent publishes a
// draft and asks a named teammate for review; the teammate approves on the canvas's page; the
// page a customer holds open through a link that follows approval moves to that version then,
// and only then, never showing the draft before. The reviewer's screens on a phone and a laptop,
// light and dark, with axe-core's verdict.

const PHONE = { width: 390, height: 844 }
const LAPTOP = { width: 1280, height: 800 }

let url: string
let browser: Awaited<ReturnType<typeof launchBrowser>>
const people: Person[] = []

beforeAll(async () => {
  url = (await sharedDevServer()).url
  browser = await launchBrowser()
}, SETUP_MS)

afterAll(async () => {
  for (const person of people) await person.close()
  await browser?.close()
})

async function browserOf(cookie?: string) {
  const person = await browser.newPerson()
  people.push(person)
  if (cookie) {
    const [name, value] = cookie.split('=')
    await person.context.addCookies([{ name, value, url }])
  }
  return person.context.newPage()
}

it('an agent’s draft reaches a link’s readers when a teammate approves it in the browser, not before', async () => {
  const stamp = Date.now()
  const owner = await newDevAccount(url, `review-owner-${stamp}@example.com`)
  const reviewerEmail = `review-mate-${stamp}@example.com`
  const reviewer = await newDevAccount(url, reviewerEmail)
  const api = (path: string, init?: Parameters<typeof callApi>[3]) =>
    callApi(url, owner.key, path, init)
  const me = await (await api('/v1/me')).json()
  const invite = await (
    await api(`/v1/workspaces/${me.workspace.workspace_id}/invites`, {
      method: 'POST',
      json: { role: 'editor' },
    })
  ).json()
  const joined = await fetch(`${url}/auth/join/${invite.url.split('/join/')[1]}`, {
    method: 'POST',
    headers: { Cookie: reviewer.cookie, Origin: url },
  })
  expect(joined.status).toBe(200)

  // The agent publishes, the first version is approved, and a customer opens the link.
  const form = new FormData()
  form.append('file', new Blob(['# Proposal\n\nFirst draft']), 'proposal.md')
  form.append('title', `Proposal ${stamp}`)
  form.append('permanent', 'true')
  const canvas = await (await api('/v1/canvases', { method: 'POST', body: form })).json()
  const id = canvas.canvas_id as string
  const ask = async (version: number) => {
    const res = await api(`/v1/canvases/${id}/reviews`, {
      method: 'POST',
      json: { version, reviewers: [reviewerEmail], note: `Version ${version} for the customer` },
    })
    expect(res.status).toBe(201)
    return (await res.json()).review_id as string
  }
  // The customer holds the link before anything is approved: the page says so, and waits.
  const link = await (
    await api(`/v1/canvases/${id}/shares`, { method: 'POST', json: { follow: 'approved' } })
  ).json()
  const customer = await browserOf()
  await customer.goto(`${url}/s/${link.token}`)
  expect(await customer.textContent('h1')).toBe('Awaiting review')
  for (const size of [PHONE, LAPTOP]) {
    await customer.setViewportSize(size)
    expect(await schemeViolations(customer, 'light'), `${size.width} px`).toEqual([])
  }
  await expect.poll(() => customer.getAttribute('[data-live]', 'data-live-state')).toBe('open')
  const first = await ask(1)
  const reviewerKey = await reviewer.newKey()
  const approved = await callApi(url, reviewerKey, `/v1/reviews/${first}/decisions`, {
    method: 'POST',
    json: { decision: 'approve' },
  })
  expect(approved.status).toBe(201)
  // Approved: the waiting page opens the approved version by itself.
  const chip = customer.locator('[data-live-version]')
  await expect.poll(() => chip.textContent(), { timeout: 10_000 }).toContain('v1')
  await expect.poll(() => customer.getAttribute('.viewer', 'data-live-state')).toBe('open')

  // The agent pushes a draft and asks for review: the customer's page stays where it is.
  const draft = new FormData()
  draft.append('file', new Blob(['# Proposal\n\nSecond draft, unreviewed']), 'proposal.md')
  const pushed = await api(`/v1/canvases/${id}`, { method: 'PATCH', body: draft })
  expect((await pushed.json()).version).toBe(2)
  await ask(2)
  await customer.waitForTimeout(1500)
  expect(await chip.textContent()).toContain('v1')

  // The teammate's screens: the dashboard marks the canvas; its page asks for their decision.
  const mate = await browserOf(reviewer.cookie)
  for (const size of [PHONE, LAPTOP]) {
    await mate.setViewportSize(size)
    for (const colorScheme of ['light', 'dark'] as const) {
      await mate.emulateMedia({ colorScheme })
      const where = `${size.width} px, ${colorScheme}`
      await mate.goto(`${url}/`)
      expect(await mate.textContent('#awaiting-review'), where).toContain('Waiting for your review')
      expect(await mate.textContent('main'), where).toContain(`Proposal ${stamp}`)
      expect(await schemeViolations(mate, colorScheme), where).toEqual([])
      await mate.goto(`${url}/c/${id}#reviews`)
      const panel = mate.locator('.review-ask')
      expect(await panel.textContent(), where).toContain('asks for your review of v2')
      expect(await panel.locator('a', { hasText: 'Changes since v1' }).count(), where).toBe(1)
      expect(await schemeViolations(mate, colorScheme), where).toEqual([])
    }
  }
  await mate.emulateMedia({ colorScheme: 'light' })

  // Approved in the browser: the customer's page moves to the approved version at once.
  await mate.fill('.review-ask textarea', 'Good for the customer')
  await mate.click('.review-ask button[value=approve]')
  await expect.poll(() => mate.textContent('main')).toContain('Approved: version 2')
  await expect.poll(() => chip.textContent(), { timeout: 10_000 }).toContain('v2')
  const frame = customer.frameLocator('iframe')
  await expect.poll(() => frame.locator('body').textContent()).toContain('Second draft')

  // The owner's page says what the link's readers see now; its Request review page names the
  // members, on a phone and a laptop, light and dark.
  const ownerPage = await browserOf(owner.cookie)
  await ownerPage.goto(`${url}/c/${id}#share`)
  expect(await ownerPage.textContent(`#share-${link.token}`)).toContain('v2 (approved)')
  for (const size of [PHONE, LAPTOP]) {
    await ownerPage.setViewportSize(size)
    for (const colorScheme of ['light', 'dark'] as const) {
      await ownerPage.emulateMedia({ colorScheme })
      const where = `${size.width} px, ${colorScheme}`
      await ownerPage.goto(`${url}/c/${id}/review`)
      expect(await ownerPage.textContent('main'), where).toContain(reviewerEmail)
      expect(await schemeViolations(ownerPage, colorScheme), where).toEqual([])
      if (process.env.SHOTS) {
        await ownerPage.screenshot({
          path: `${process.env.SHOTS}/request-${size.width}-${colorScheme}.png`,
        })
      }
    }
  }
})
