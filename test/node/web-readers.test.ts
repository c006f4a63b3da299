import { mkdirSync } from 'node:fs'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { schemeViolations } from './support/axe'
import { launchBrowser, type Person } from './support/browser'
import {
  addressHeaders,
  clientAddress,
  newDevAccount,
  sharedDevServer,
  SETUP_MS,
} from './support/dev-server'
import { callApi } from './support/api.ts'

// The Readers page in real Chromium against a real `wrangler dev` (docs/readership.md): readers of
// a link on their own networks and a member's own read, counted, written within the minute, and
// shown to the member who follows the canvas page's link: a bar a day, the link by the first
// characters of its token, who read which version; on a phone and a laptop, light and dark, with
// axe-core's verdict. SHOTS=<folder> saves its screenshots there.

const SIZES = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
]

let url: string
let browser: Awaited<ReturnType<typeof launchBrowser>>
let person: Person

beforeAll(async () => {
  url = (await sharedDevServer()).url
  browser = await launchBrowser()
}, SETUP_MS)

afterAll(async () => {
  await person?.close()
  await browser?.close()
})

it('shows a member who read their canvas, by day, link and member, on any screen', async () => {
  const owner = await newDevAccount(url, `readers-${Date.now()}@example.com`)
  const api = async (path: string, init?: Parameters<typeof callApi>[3]) =>
    (await callApi(url, owner.key, path, init)).json()
  const form = new FormData()
  form.append('file', new Blob(['# Quarterly report\n\nRevenue grew.']), 'report.md')
  form.append('permanent', 'true')
  const created = await fetch(`${url}/v1/canvases`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${owner.key}` },
    body: form,
  })
  const canvas = await created.json()
  const id = canvas.canvas_id as string
  const link = await api(`/v1/canvases/${id}/shares`, { method: 'POST', json: {} })
  // Three readers of the link, each on a network of their own, one of them twice.
  const readers = [clientAddress(), clientAddress(), clientAddress()]
  for (const address of [...readers, readers[0]]) {
    const res = await fetch(`${url}/share/${link.token}/content`, {
      redirect: 'manual',
      headers: { ...addressHeaders(address), 'User-Agent': 'a reader' },
    })
    expect(res.status).toBe(302)
  }
  // A reader meets a link revoked, another gives a wrong password: refused opens.
  const revoked = await api(`/v1/canvases/${id}/shares`, { method: 'POST', json: {} })
  await api(`/v1/canvases/${id}/shares/${revoked.token}`, { method: 'DELETE' })
  const locked = await api(`/v1/canvases/${id}/shares`, {
    method: 'POST',
    json: { password: 'open sesame' },
  })
  const refusals = [
    fetch(`${url}/s/${revoked.token}`, { headers: addressHeaders(readers[1]) }),
    fetch(`${url}/share/${locked.token}/content`, {
      redirect: 'manual',
      headers: { ...addressHeaders(readers[2]), 'X-Share-Password': 'guess' },
    }),
  ]
  expect((await Promise.all(refusals)).map((r) => r.status)).toEqual([404, 403])
  // The first read of a quiet canvas is written at once; the rest within the minute.
  await expect
    .poll(
      async () => {
        const views = await api(`/v1/canvases/${id}/views`)
        return [views.total, views.denied.revoked, views.denied.wrong_password]
      },
      { timeout: 90_000 },
    )
    .toEqual([4, 1, 1])

  person = await browser.newPerson()
  const [name, value] = owner.cookie.split('=')
  await person.context.addCookies([{ name, value, url }])
  const page = await person.context.newPage()
  await page.goto(`${url}/c/${id}`)
  // The canvas page's panel: the week's views as a chart, and the way to the rest.
  expect(await page.textContent('#readers + p')).toBe('4 views in the last 7 days.')
  expect(await page.locator('.views-chart.compact rect').count()).toBe(7)
  expect(await page.textContent('p:has-text("Refused opens this week")')).toContain(
    '1 on a revoked link, 1 with a wrong password.',
  )
  await page.locator('#readers').scrollIntoViewIfNeeded()
  await looksRight(page, 'canvas-readers', false)
  await page.click('text=Who read this canvas')
  await page.waitForURL(`${url}/c/${id}/readers`)
  expect(await page.textContent('#readers-total')).toContain('4 views by 3 readers')
  const today = new Date().toISOString().slice(0, 10)
  expect(await page.locator('.views-chart rect').count()).toBe(30)
  expect(await page.locator('.views-chart rect').last().textContent()).toBe(
    `${today}: 4 views, 3 readers`,
  )
  expect(await page.textContent('main')).toContain(`${link.token.slice(0, 6)}…`)
  expect(await page.textContent('main')).not.toContain(link.token)
  const lastRead = page.locator('td[data-label="Last read"]').first()
  expect(await lastRead.textContent()).toMatch(/^(just now|\d+ min ago)$/)
  const refused = page.locator('tr', { hasText: 'The link had been revoked' })
  expect(await refused.locator('td[data-label="Opens"]').textContent()).toBe('1')
  await page.click('text=7 days')
  await page.waitForURL(`${url}/c/${id}/readers?days=7`)
  expect(await page.locator('.views-chart rect').count()).toBe(7)
  await looksRight(page, 'readers')

  // Share again: the canvas's page with its new link form open.
  await page.click('text=Share again')
  await page.waitForURL(`${url}/c/${id}?share=new#new-share`)
  expect(await page.isVisible('#new-share')).toBe(true)

  // The dashboard: the canvas's views of the week, a link to its readers.
  await page.goto(url)
  const week = page.locator(`a[href="/c/${id}/readers?days=7"]`)
  expect(await week.textContent()).toBe('4')
  await looksRight(page, 'dashboard')
  // A row's menu near the foot of a short window opens upwards, whole.
  await page.setViewportSize({ width: 1280, height: 520 })
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight))
  await page.click(`#canvas-${id} summary:has-text("More")`)
  const menu = await page.locator(`#canvas-${id} details.menu > .items`).boundingBox()
  expect(menu!.y).toBeGreaterThanOrEqual(0)
  expect(menu!.y + menu!.height).toBeLessThanOrEqual(520)
}, 180_000)

/** On a phone and a laptop, light and dark: nothing axe-core finds, nothing wider than the screen. */
async function looksRight(
  page: Awaited<ReturnType<Person['context']['newPage']>>,
  name: string,
  fullPage = true,
) {
  const shots = process.env.SHOTS
  if (shots) mkdirSync(shots, { recursive: true })
  for (const size of SIZES) {
    await page.setViewportSize(size)
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme })
      // Once its colours have eased into the scheme (the dashboard's drop target fades).
      await page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished)))
      const where = `${name}, ${size.width} px, ${colorScheme}`
      expect(await schemeViolations(page, colorScheme), where).toEqual([])
      const width = await page.evaluate(() => document.documentElement.scrollWidth)
      expect(width, where).toBeLessThanOrEqual(size.width)
      if (shots) {
        await page.screenshot({
          path: `${shots}/${name}-${size.width}-${colorScheme}.png`,
          fullPage,
        })
      }
    }
  }
}
