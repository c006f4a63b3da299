import { afterAll, beforeAll, expect, it } from 'vitest'
import { schemeViolations } from './support/axe'
import { launchBrowser, type Person } from './support/browser'
import { newDevAccount, sharedDevServer, SETUP_MS } from './support/dev-server'
import { callApi } from './support/api.ts'

// A team in real Chromium against a real `wrangler dev` (docs/teams.md): the owner invites from
// the Members page, the invited person joins from the link in a browser of their own and sees the
// team's canvases, a change of role takes effect at once, and a removal ends their access.

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

/** A browser of its own, signed in as a new account; and that account's API key. */
async function personWith(email: string) {
  const account = await newDevAccount(url, email)
  const person = await browser.newPerson()
  people.push(person)
  const [name, value] = account.cookie.split('=')
  await person.context.addCookies([{ name, value, url }])
  return { page: await person.context.newPage(), key: account.key }
}

it('invite, join from the link in another browser, see the team’s canvases, change the role, remove', async () => {
  const stamp = Date.now()
  const owner = await personWith(`team-owner-${stamp}@example.com`)
  const member = await personWith(`team-member-${stamp}@example.com`)
  const page = owner.page

  // A team, made and entered from the Members page.
  await page.goto(`${url}/settings/members`)
  await page.fill('#workspace-name', `Studio ${stamp}`)
  await page.click('form[action="/settings/members/workspaces"] button[type=submit]')
  await expect.poll(() => page.textContent('h1')).toContain(`Studio ${stamp}`)
  // A canvas of the team's, published by the owner with a key made for the team.
  const keys = await page.request.post(`${url}/auth/keys`, {
    data: { name: 'team' },
    headers: { Origin: url },
  })
  const teamKey = (await keys.json()).key as string
  const form = new FormData()
  form.append('file', new Blob(['# Team plan']), 'plan.md')
  form.append('title', `Team plan ${stamp}`)
  const made = await callApi(url, teamKey, '/v1/canvases', { method: 'POST', body: form })
  expect(made.status).toBe(201)

  // The invite: its link is shown once, to copy.
  await page.selectOption('#invite-role', 'editor')
  await page.click('form[action="/settings/members/invites"] button[type=submit]')
  const link = (await page.textContent('#copy-0'))!.trim()
  expect(link).toMatch(new RegExp(`^${url}/join/[A-Za-z0-9]{32}$`))

  // The other person opens it, joins in one click, and lands on the team's canvases.
  await member.page.goto(link)
  await expect.poll(() => member.page.textContent('h1')).toContain(`Join Studio ${stamp}`)
  await member.page.click('form[action^="/join/"] button[type=submit]')
  await member.page.waitForURL(`${url}/`)
  const home = await member.page.textContent('main')
  expect(home).toContain(`You joined “Studio ${stamp}” as editor`)
  expect(home).toContain(`Team plan ${stamp}`)

  // The owner makes them a viewer: their Members page says so at once.
  await page.goto(`${url}/settings/members`)
  const row = page.locator('tr', { hasText: `team-member-${stamp}@example.com` })
  await row.locator('select[name=role]').selectOption('viewer')
  await row.locator('button', { hasText: 'Change' }).click()
  await expect.poll(() => page.textContent('main')).toContain('Their role is now viewer')
  await member.page.goto(`${url}/settings/members`)
  expect(await member.page.textContent('main')).toContain('You are a viewer here')
  // A viewer is shown nothing they could not do, on a phone and a laptop, light and dark.
  const canvasId = (await made.clone().json()).canvas_id as string
  for (const size of [PHONE, LAPTOP]) {
    await member.page.setViewportSize(size)
    for (const colorScheme of ['light', 'dark'] as const) {
      await member.page.emulateMedia({ colorScheme })
      const where = `${size.width} px, ${colorScheme}`
      await member.page.goto(`${url}/`)
      expect(await member.page.locator('form[action="/upload"]').count(), where).toBe(0)
      expect(await member.page.locator('main table details.menu').count(), where).toBe(0)
      expect(await member.page.textContent('#viewer-note'), where).toContain(
        `You are a viewer in Studio ${stamp}`,
      )
      expect(await member.page.textContent('main'), where).toContain(`Team plan ${stamp}`)
      expect(await schemeViolations(member.page, colorScheme), where).toEqual([])
      await member.page.goto(`${url}/c/${canvasId}`)
      for (const control of ['Share', 'Make permanent', 'Make public', 'Delete…']) {
        const shown = member.page.getByRole('link', { name: control, exact: true })
        expect(await shown.filter({ visible: true }).count(), `${where}: ${control}`).toBe(0)
      }
      expect(await member.page.locator('#share').count(), where).toBe(0)
      expect(await member.page.locator('form[action="/upload"]').count(), where).toBe(0)
      expect(await schemeViolations(member.page, colorScheme), where).toEqual([])
    }
  }
  await member.page.emulateMedia({ colorScheme: 'light' })
  await member.page.setViewportSize(LAPTOP)

  // Removed, they are back in their own workspace, and the team's canvas is not theirs to see.
  await page.goto(`${url}/settings/members`)
  const again = page.locator('tr', { hasText: `team-member-${stamp}@example.com` })
  await again.locator('summary', { hasText: 'Remove' }).click()
  await again.locator('button', { hasText: 'Remove team-member' }).click()
  await expect.poll(() => page.textContent('main')).toContain('They are removed')
  await member.page.goto(`${url}/`)
  // Their next page says what happened, once.
  expect(await member.page.textContent('main')).toContain(
    `You are no longer a member of “Studio ${stamp}”`,
  )
  expect(await member.page.textContent('main')).not.toContain(`Team plan ${stamp}`)
  await member.page.goto(`${url}/c/${(await made.json()).canvas_id}`)
  expect(await member.page.textContent('main')).not.toContain('Team plan')

  // The owner reads it all back in Activity, newest first, and one member's story by filter.
  await page.goto(`${url}/settings/members`)
  await page.click('main a[href="/settings/activity"]')
  const actions = await page.locator('main tbody tr code').allTextContents()
  expect(actions.slice(0, 4)).toEqual([
    'member.removed',
    'member.role_changed',
    'member.joined',
    'member.invited',
  ])
  // What a key did names the person behind it.
  const published = page.locator('main tbody tr', { hasText: 'canvas.created' })
  expect(await published.locator('td[data-label="Who"]').textContent()).toContain(
    `team · team-owner-${stamp}@example.com`,
  )
  await page.fill('input[name=actor]', `team-member-${stamp}@example.com`)
  await page.click('form[role=search] button[type=submit]')
  await expect
    .poll(() => page.locator('main tbody tr code').allTextContents())
    .toEqual(['member.joined'])
})
