import { readFileSync } from 'node:fs'
import type { Frame, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, type Person } from './support/browser'
import { newDevAccount, ON_THIS_MACHINE, sharedDevServer, SETUP_MS } from './support/dev-server'
import { callApi } from './support/api.ts'

// Diagrams, charts, math and notebooks drawn in real Chromium against a real `wrangler dev`
// (docs/web.md, renderers): each fixture on the owner's page and on a share page, on a laptop
// and on a phone, light and dark; a broken diagram and a broken chart show their error and their
// source; nothing a notebook's outputs hold runs; and no request leaves the deployment.

const FIXTURES = new URL('../fixtures/drawings/', import.meta.url)
const VIEWS = [
  { width: 1280, height: 800, colorScheme: 'light' },
  { width: 390, height: 844, colorScheme: 'dark' },
] as const

let url: string
let key: string
let browser: Awaited<ReturnType<typeof launchBrowser>>
let owner: Person
let visitor: Person
/** Every host a page or frame asked for anything, and every policy the browser enforced. */
const hosts = new Set<string>()
const refusals: string[] = []

beforeAll(async () => {
  url = (await sharedDevServer()).url
  const account = await newDevAccount(url, `drawings-${Date.now()}@example.com`)
  key = account.key
  browser = await launchBrowser()
  // No address of their own (ON_THIS_MACHINE): the drawing libraries' requests would be preflighted.
  owner = await browser.newPerson(undefined, ON_THIS_MACHINE)
  const [name, value] = account.cookie.split('=')
  await owner.context.addCookies([{ name, value, url }])
  visitor = await browser.newPerson(undefined, ON_THIS_MACHINE)
}, SETUP_MS)

afterAll(async () => {
  await browser?.close()
})

async function publish(name: string) {
  const form = new FormData()
  form.append('file', new Blob([readFileSync(new URL(name, FIXTURES))]), name)
  const res = await callApi(url, key, '/v1/canvases', { method: 'POST', body: form })
  expect(res.status).toBe(201)
  return (await res.json()) as { canvas_id: string; renderer_id: string }
}

async function shareOf(id: string) {
  const res = await callApi(url, key, `/v1/canvases/${id}/shares`, { method: 'POST', json: {} })
  return ((await res.json()) as { token: string }).token
}

/** Opens `path` as `person` in `view`, and the content frame once its document has loaded. */
async function opened(person: Person, path: string, view: (typeof VIEWS)[number]) {
  const page = await person.context.newPage()
  await page.setViewportSize({ width: view.width, height: view.height })
  await page.emulateMedia({ colorScheme: view.colorScheme })
  page.on('request', (request) => hosts.add(new URL(request.url()).host))
  page.on('console', (message) => {
    // An HTML output's script refused by its frame's sandbox is what is meant to happen.
    if (/Refused|violates/.test(message.text())) refusals.push(message.text())
  })
  await page.goto(url + path)
  await page.waitForSelector('iframe').catch(async (error) => {
    throw new Error(
      `${path} at ${page.url()}: ${(await page.textContent('body'))?.slice(0, 300)}`,
      { cause: error },
    )
  })
  const frame = page.frames().find((f) => f !== page.mainFrame())!
  await frame.waitForLoadState()
  return { page, frame }
}

/**
 * `check` on the drawn frame, which stays within the phone's width: on the owner's page and a
 * share page, each in both views, or (`paired`) the owner's on a laptop in the light and the
 * share page on a phone in the dark.
 */
async function everywhere(
  name: string,
  check: (frame: Frame, page: Page) => Promise<void>,
  paired = true,
) {
  const { canvas_id: id } = await publish(name)
  const token = await shareOf(id)
  for (const [person, path, views] of [
    [owner, `/c/${id}`, paired ? [VIEWS[0]] : VIEWS],
    [visitor, `/s/${token}`, paired ? [VIEWS[1]] : VIEWS],
  ] as const) {
    for (const view of views) {
      const { page, frame } = await opened(person, path, view)
      await check(frame, page)
      const background = await frame.evaluate(() => getComputedStyle(document.body).backgroundColor)
      expect(background).toBe(
        view.colorScheme === 'dark' ? 'rgb(13, 17, 23)' : 'rgb(255, 255, 255)',
      )
      const overflow = await frame.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      )
      expect(overflow, `${name} at ${view.width}px`).toBeLessThanOrEqual(1)
      await page.close()
    }
  }
}

const texts = (frame: Frame, selector: string) =>
  frame.locator(selector).evaluateAll((all) => all.map((e) => e.textContent ?? ''))

describe('drawn in the frame', () => {
  it('a flowchart and a sequence diagram as SVG', async () => {
    await everywhere(
      'flow.mmd',
      async (frame) => {
        await frame.waitForSelector('.diagram svg')
        expect((await texts(frame, '.diagram svg')).join(' ')).toContain('Agent writes')
        expect(await frame.locator('.mermaid-source').count()).toBe(0)
      },
      false,
    )
    await everywhere('sequence.mermaid', async (frame) => {
      await frame.waitForSelector('.diagram svg')
      expect((await texts(frame, '.diagram svg')).join(' ')).toContain('svc push flow.mmd')
    })
  })

  it('a bar chart from a Vega-Lite spec, its data inline', async () => {
    await everywhere('chart.vl.json', async (frame) => {
      await frame.waitForSelector('.chart svg .mark-rect path')
      expect(await frame.locator('.chart svg .mark-rect path').count()).toBe(3)
    })
  })

  it('inline and display math, and a diagram, in Markdown; dollars of prices stay prose', async () => {
    await everywhere('report.md', async (frame) => {
      await frame.waitForSelector('.katex-display')
      await frame.waitForSelector('.diagram svg')
      expect(await frame.locator('.math .katex').count()).toBe(2)
      expect(await frame.locator('article').textContent()).toContain('prices like $5 and $10')
    })
  })

  it('a notebook with an output of each kind, none of them run', async () => {
    await everywhere(
      'outputs.ipynb',
      async (frame, page) => {
        await frame.waitForSelector('.chart svg')
        await frame.waitForSelector('.katex-display')
        for (const type of ['png', 'jpeg', 'svg+xml']) {
          const image = frame.locator(`img[src^="data:image/${type}"]`)
          await expect
            .poll(() => image.evaluate((i: HTMLImageElement) => i.naturalWidth))
            .toBeGreaterThan(0)
        }
        expect(await frame.locator('.cell .hljs-keyword').count()).toBeGreaterThan(0)
        expect(await frame.locator('pre.error .ansi-red-fg').count()).toBeGreaterThan(0)
        expect(await frame.locator('pre.error').textContent()).not.toMatch(/\[0;31m|\u001b/)
        expect(await frame.locator('pre.stderr').textContent()).toContain('a warning')
        expect(await frame.locator('.json').textContent()).toContain('"answer"')
        const table = page.frames().find((f) => f.url() === 'about:srcdoc')!
        await table.waitForSelector('table.dataframe')
        expect(await table.locator('td').first().textContent()).toBe('Oslo')
        // The output's script and the SVG's did not run: nothing was marked.
        expect(await frame.evaluate(() => document.body.dataset.owned ?? null)).toBeNull()
        expect(await frame.evaluate(() => (window as { owned?: boolean }).owned ?? null)).toBeNull()
      },
      false,
    )
  })

  it('a broken diagram and a broken chart show their error and their source', async () => {
    await everywhere('broken.mmd', async (frame) => {
      const failure = frame.locator('.draw-failed')
      await failure.waitFor()
      expect(await failure.locator('.notice').textContent()).toMatch(
        /^This diagram could not be drawn: .*Parse error/s,
      )
      expect(await failure.locator('pre').textContent()).toContain('A[unclosed --> B((')
      expect(await frame.locator('svg').count()).toBe(0)
    })
    await everywhere('broken.vl.json', async (frame) => {
      const failure = frame.locator('.draw-failed')
      await failure.waitFor()
      expect(await failure.locator('.notice').textContent()).toMatch(
        /^This chart could not be drawn: /,
      )
      expect(await failure.locator('pre').textContent()).toContain('datum.a +* 2')
    })
  })

  it('a new version of a diagram is drawn again on the open page', async () => {
    const { canvas_id: id } = await publish('flow.mmd')
    const { page } = await opened(owner, `/c/${id}`, VIEWS[0])
    await page.waitForSelector('[data-live-state=open]')
    const form = new FormData()
    form.append('file', new Blob(['flowchart LR\n  X[Redrawn live] --> Y']), 'flow.mmd')
    const res = await callApi(url, key, `/v1/canvases/${id}`, { method: 'PATCH', body: form })
    expect(res.status).toBe(200)
    const drawn = async () => {
      const frame = page.frames().find((f) => f !== page.mainFrame() && f.url().includes('/2'))
      return frame
        ? ((await frame
            .locator('.diagram svg')
            .textContent()
            .catch(() => '')) ?? '')
        : ''
    }
    await expect.poll(drawn, { timeout: 15_000 }).toContain('Redrawn live')
    await page.close()
  })

  it('asked nothing of any host but the deployment, and broke no policy', () => {
    expect([...hosts]).toEqual([new URL(url).host])
    expect(refusals).toEqual([])
  })
})
