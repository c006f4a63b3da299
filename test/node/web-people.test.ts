import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Locator, Page } from 'playwright-core'
import { launchBrowser, signUpWithKey } from './support/browser'
import { sharedDevServer, SETUP_MS } from './support/dev-server'
import { callApi, type ApiInit } from './support/api.ts'
import { publisher } from './support/publish.ts'

// The web app as a person meets it, in real Chromium against a real `wrangler dev`, on a phone
// (390x844) and a laptop (1280x800), light and dark: the content full size, messages land where
// the eye is and take the focus, a live version reaches everything that names versions, a failed
// upload says what to do. Every page's layout and axe-core's verdict: web-layout.test.ts.

const PHONE = { width: 390, height: 844 }
const LAPTOP = { width: 1280, height: 800 }
const SIZES = [PHONE, LAPTOP]
const SCHEMES = ['light', 'dark'] as const

let server: { url: string }
let browser: Awaited<ReturnType<typeof launchBrowser>>
let page: Page
let key: string
const email = 'people@example.com'
const password = 'correct horse battery'

beforeAll(async () => {
  server = await sharedDevServer()
  browser = await launchBrowser()
  page = await (await browser.newPerson()).context.newPage()
  key = await signUpWithKey(page, server.url, email, password)
}, SETUP_MS)

afterAll(async () => {
  await browser?.close()
})

const api = (path: string, init?: ApiInit) => callApi(server.url, key, path, init)

const { canvas, newVersion, share, site } = publisher(api)

/** The focused element and whether it lies wholly inside the window. */
const focusedInView = (p: Page) =>
  p.evaluate(() => {
    const el = document.activeElement as HTMLElement | null
    if (!el || el === document.body) return { focused: null, inView: false }
    const box = el.getBoundingClientRect()
    const inView = box.top >= 0 && box.bottom <= window.innerHeight && box.height > 0
    return { focused: `${el.tagName.toLowerCase()}.${el.className}`, inView, text: el.innerText }
  })

/**
 * A click once the page has drawn itself scrolled: Chromium routes a click by where frames were
 * last drawn, so a click at once after a scroll can land in the content's frame, drawn there a
 * moment before.
 */
async function settledClick(p: Page, target: Locator) {
  await target.scrollIntoViewIfNeeded()
  await p.evaluate(
    () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))),
  )
  await target.click()
}

/**
 * The contrast ratio (WCAG) of an element's text with what lies behind it: its own background
 * and its ancestors', each laid over the one below as the browser paints them.
 */
function contrastOf(el: Element) {
  // rgb(255 0 0), rgba(255, 0, 0, 0.5), or color(srgb 1 0 0 / 0.5) for a color-mix().
  const rgba = (colour: string) => {
    const [r, g, b, a = 1] = colour.match(/[\d.]+/g)!.map(Number)
    const scale = colour.startsWith('color(') ? 255 : 1
    return [r * scale, g * scale, b * scale, a]
  }
  const layers: number[][] = []
  for (let node: Element | null = el; node; node = node.parentElement) {
    const colour = rgba(getComputedStyle(node).backgroundColor)
    if (colour[3] > 0) layers.push(colour)
    if (colour[3] === 1) break
  }
  let ground = [255, 255, 255]
  for (const [r, g, b, a] of layers.reverse()) {
    ground = [r, g, b].map((v, i) => v * a + ground[i] * (1 - a))
  }
  const luminance = ([r, g, b]: number[]) => {
    const [lr, lg, lb] = [r, g, b].map((v) => {
      const c = v / 255
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
    })
    return 0.2126 * lr + 0.7152 * lg + 0.0722 * lb
  }
  const [text, back] = [luminance(rgba(getComputedStyle(el).color)), luminance(ground)]
  return (Math.max(text, back) + 0.05) / (Math.min(text, back) + 0.05)
}

/** The app's danger colour for text, as the browser writes colours. */
const dangerColour = (p: Page) =>
  p.evaluate(() => {
    const probe = document.createElement('span')
    probe.style.color = 'var(--danger-text)'
    document.body.append(probe)
    const colour = getComputedStyle(probe).color
    probe.remove()
    return colour
  })

describe('the content, full size', () => {
  it("the owner's frame takes the rest of the window, and the full-page view all of it", async () => {
    const id = await canvas(
      'long.md',
      Array.from({ length: 200 }, (_, i) => `Line ${i}\n`).join('\n'),
    )
    for (const size of SIZES) {
      await page.setViewportSize(size)
      await page.goto(`${server.url}/c/${id}`)
      const frame = await page.locator('iframe').boundingBox()
      expect(Math.round(frame!.y + frame!.height)).toBe(size.height)
      // The full-page view, from the bar (on a phone, from its menu).
      if (size === PHONE) await page.click('.bar details.menu summary')
      await page.locator('.bar a:visible', { hasText: 'Full page' }).click()
      await page.waitForURL(`${server.url}/c/${id}/full`)
      const full = await page.locator('iframe').boundingBox()
      expect(full).toMatchObject({ x: 0, y: 0, width: size.width, height: size.height })
      expect(await page.locator('iframe').getAttribute('sandbox')).not.toContain(
        'allow-same-origin',
      )
    }
  })

  it("the owner's tools are in the bar over the content: Share and a menu, on a phone every action in the menu", async () => {
    const id = await canvas('a temporary report with a long name.md', '# Report\n')
    const inWindow = async (name: string) => {
      const item = page.locator('.bar a:visible, .bar button:visible', { hasText: name })
      const box = (await item.boundingBox())!
      const size = page.viewportSize()!
      expect(box.y >= 0 && box.y + box.height <= size.height, name).toBe(true)
      expect(box.x >= 0 && box.x + box.width <= size.width, name).toBe(true)
    }
    for (const size of SIZES) {
      await page.setViewportSize(size)
      await page.goto(`${server.url}/c/${id}`)
      // The end of a long title stays in sight: what kind of file it is.
      expect(await page.locator('.bar .title .ext').isVisible()).toBe(true)
      if (size === LAPTOP) await inWindow('Share…')
      await page.click('.bar details.menu > summary')
      const tools = ['Make permanent', 'Make public', 'Delete…', 'Download']
      if (size === PHONE) tools.push('Share…', 'Full page')
      for (const name of tools) await inWindow(name)
    }
    // An action chosen in the menu answers under the bar, where the eye is.
    await page.locator('.bar .items button', { hasText: 'Make public' }).click()
    await page.waitForURL(`${server.url}/c/${id}`)
    const notice = page.locator('.viewer .notice[role=status]')
    expect(await notice.innerText()).toContain('is public')
    expect((await focusedInView(page)).inView).toBe(true)
    // Share leads to the links and the form for a new one.
    await page.locator('.bar a:visible', { hasText: 'Share…' }).click()
    await page.waitForURL(`${server.url}/c/${id}#share`)
    expect(await page.locator('#share-expires').isVisible()).toBe(true)
  })

  it('a visitor has the full-page view too, of a public canvas and of a share link', async () => {
    const id = await canvas('open.md', '# Open\n')
    await api(`/v1/canvases/${id}`, { method: 'PATCH', json: { visibility: 'public' } })
    const token = await share(id)
    const stranger = await browser.newPerson()
    try {
      const p = await stranger.context.newPage()
      for (const path of [`/c/${id}`, `/s/${token}`]) {
        await p.goto(server.url + path)
        await p.locator('.bar a:visible', { hasText: 'Full page' }).click()
        await p.waitForURL(`${server.url}${path}/full`)
        const full = await p.locator('iframe').boundingBox()
        expect(full).toMatchObject({ x: 0, y: 0, width: LAPTOP.width, height: LAPTOP.height })
        const heading = p.frameLocator('iframe').locator('h1')
        expect(await heading.innerText({ timeout: 10_000 })).toBe('Open')
      }
      // A link with a view limit asks for its Open button there, and comes back to the view.
      const limited = await share(id, { max_views: 2 })
      await p.goto(`${server.url}/s/${limited}/full`)
      await p.click('button:has-text("Open")')
      await p.waitForURL(`${server.url}/s/${limited}/full`)
      expect(await p.frameLocator('iframe').locator('h1').innerText({ timeout: 10_000 })).toBe(
        'Open',
      )
    } finally {
      await stranger.close()
    }
  })
})

describe('feedback that is true and seen', () => {
  it('a share form refused comes back scrolled to its error, focused; a link made, its banner', async () => {
    const id = await canvas('shared.md', '# Shared\n')
    await share(id, { token: 'taken-name-1' })
    for (const size of SIZES) {
      await page.setViewportSize(size)
      await page.goto(`${server.url}/c/${id}`)
      await settledClick(page, page.locator('summary:has-text("New share link")'))
      await page.fill('#share-token', 'taken-name-1')
      await page.click('button:has-text("Create link")')
      await page.locator('.notice.error[data-notice]').waitFor()
      const refused = await focusedInView(page)
      expect(refused).toMatchObject({ focused: 'div.notice error', inView: true })
      expect(refused.text).toBe(
        'The link name “taken-name-1” is taken: choose another, or leave it empty for a random one.',
      )

      await page.fill('#share-token', '')
      await page.click('button:has-text("Create link")')
      await page.waitForURL(new RegExp(`/c/${id}#share$`))
      await page.locator('.notice.success').waitFor()
      const made = await focusedInView(page)
      expect(made).toMatchObject({ focused: 'div.notice success', inView: true })
      expect(made.text).toContain('Share link created')
    }
  })

  it('a wrong password at login is said where the form is, focused', async () => {
    const stranger = await browser.newPerson()
    try {
      const p = await stranger.context.newPage()
      await p.setViewportSize(PHONE)
      await p.goto(server.url + '/login')
      await p.fill('#email', email)
      await p.fill('#password', 'not the password')
      await p.click('button[type=submit]')
      await p.locator('.notice.error[data-notice]').waitFor()
      expect(await focusedInView(p)).toMatchObject({ focused: 'div.notice error', inView: true })
    } finally {
      await stranger.close()
    }
  })

  it('an upload answered 503 says what failed and to retry, in the danger colour; Retry publishes', async () => {
    await page.setViewportSize(LAPTOP)
    await page.goto(server.url + '/')
    await page.route('**/upload/presign', (route) =>
      route.fulfill({ status: 503, contentType: 'text/plain', body: 'Service Unavailable' }),
    )
    await page.setInputFiles('#upload-file', {
      name: 'retry-me.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('try again'),
    })
    // What was chosen, by name and size, before anything is sent.
    expect(await page.locator('[data-chosen]').innerText()).toBe('retry-me.txt · 9 B')
    await page.click('form[data-upload] button[type=submit]')
    const error = page.locator('[data-error-text]')
    await error.waitFor()
    const text = await error.innerText()
    expect(text).toContain('503')
    expect(text).toContain('Retry')
    expect(text).not.toMatch(/session/i)
    expect(await error.evaluate((el) => getComputedStyle(el).color)).toBe(await dangerColour(page))
    // Readable in both schemes: the contrast of the words with their tinted ground.
    for (const colorScheme of SCHEMES) {
      await page.emulateMedia({ colorScheme })
      // The drop zone's colours ease from one scheme to the other: read once they are there.
      await page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished)))
      expect(await error.evaluate(contrastOf), colorScheme).toBeGreaterThanOrEqual(4.5)
    }
    await page.emulateMedia({ colorScheme: 'light' })
    const retry = page.locator('[data-retry]')
    expect(await retry.isVisible()).toBe(true)

    await page.unroute('**/upload/presign')
    await retry.click()
    await page.waitForURL(/\/c\/[A-Za-z0-9]+$/)
    expect(await page.textContent('.notice[role=status]')).toContain('“retry-me.txt” is published.')
  })

  it('an upload whose connection drops says so, with Retry', async () => {
    await page.goto(server.url + '/')
    await page.route('**/upload/finish', (route) => route.abort('connectionreset'))
    await page.setInputFiles('#upload-file', {
      name: 'dropped.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('dropped'),
    })
    await page.click('form[data-upload] button[type=submit]')
    await page.locator('[data-error-text]').waitFor()
    expect(await page.locator('[data-error-text]').innerText()).toMatch(/connection/i)
    expect(await page.locator('[data-retry]').isVisible()).toBe(true)
    await page.unroute('**/upload/finish')
  })

  it('errors are sentences for people, with sizes people read and a way back to the canvas', async () => {
    const id = await canvas('two.txt', 'one')
    await newVersion(id, 'two.txt', 'two')
    const res = await page.goto(`${server.url}/c/${id}/diff?from=1&to=9`)
    expect(res!.status()).toBe(404)
    expect(await page.locator('main p').first().innerText()).toBe(
      'There is no version 9: this canvas has versions 1 to 2.',
    )
    await page.click('a:has-text("Back to the canvas")')
    await page.waitForURL(`${server.url}/c/${id}`)

    // The upload routes of the page's script speak to a person too.
    const refused = await page.evaluate(async () => {
      const csrf = document.querySelector<HTMLInputElement>('input[name=_csrf]')!.value
      const res = await fetch('/upload/presign', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
        body: JSON.stringify({
          sha256: 'a'.repeat(64),
          ext: 'txt',
          size: 6e12,
          mime: 'text/plain',
        }),
      })
      return ((await res.json()) as { error: { message: string } }).error.message
    })
    expect(refused).toMatch(/^The file is over the limit of \d+(\.\d)? [KMGT]B\.$/)
  })
})

describe('live updates reach everything that names versions', () => {
  it('a new version updates the frame, the picker, the versions table, the comparison and the share form', async () => {
    const id = await canvas('followed.md', '# One\n')
    await newVersion(id, 'followed.md', '# Two\n')
    await page.setViewportSize(LAPTOP)
    await page.goto(`${server.url}/c/${id}`)
    await page.locator('[data-live-state=open]').waitFor()
    expect(await page.locator('#version-2').innerText()).toContain('current')
    await newVersion(id, 'followed.md', '# Three\n')
    await page.locator('[data-live-status]', { hasText: 'Updated to v3.' }).waitFor()
    await page.locator('#version-3', { hasText: 'current' }).waitFor()
    expect(await page.locator('#version-2').innerText()).not.toContain('current')
    expect(await page.locator('select[name=v]').inputValue()).toBe('3')
    expect(await page.locator('#diff-to').inputValue()).toBe('3')
    expect(await page.locator('#diff-from option').allInnerTexts()).toEqual(['v3', 'v2', 'v1'])
    expect(await page.locator('#share-version option').allInnerTexts()).toContain('Only v3')
    const heading = page.frameLocator('iframe').locator('h1')
    expect(await heading.innerText({ timeout: 10_000 })).toBe('Three')

    // An older version shown stays shown, and the page still learns of the new one.
    await page.goto(`${server.url}/c/${id}?v=1`)
    await page.locator('[data-live-state=open]').waitFor()
    await newVersion(id, 'followed.md', '# Four\n')
    await page.locator('[data-live-status]', { hasText: 'v4 is out' }).waitFor()
    await page.locator('#version-4', { hasText: 'current' }).waitFor()
    expect(await page.locator('#version-1').innerText()).toContain('shown')
    expect(await page.locator('select[name=v]').inputValue()).toBe('1')
    expect(await page.locator('#share-version option').allInnerTexts()).toContain('Only v4')
    expect(await page.frameLocator('iframe').locator('h1').innerText()).toBe('One')
  })
})

describe('publishing like the peers', () => {
  it('the whole dashboard takes a drop, shows it while dragging, and opens the canvas made', async () => {
    await page.setViewportSize(LAPTOP)
    await page.goto(server.url + '/')
    const transfer = await page.evaluateHandle(() => {
      const data = new DataTransfer()
      data.items.add(new File(['# Dropped\n'], 'dropped.md', { type: 'text/markdown' }))
      return data
    })
    // Over the list, far from the form: the page says what a drop will do.
    await page.dispatchEvent('h1', 'dragenter', { dataTransfer: transfer })
    expect(await page.locator('.drop-overlay').isVisible()).toBe(true)
    await page.dispatchEvent('h1', 'dragleave', { dataTransfer: transfer })
    expect(await page.locator('.drop-overlay').isVisible()).toBe(false)
    await page.dispatchEvent('h1', 'dragenter', { dataTransfer: transfer })
    await page.dispatchEvent('h1', 'drop', { dataTransfer: transfer })
    await page.waitForURL(/\/c\/[A-Za-z0-9]+$/)
    expect(await page.textContent('.notice[role=status]')).toContain('“dropped.md” is published.')
    expect(await page.locator('.bar .title').textContent()).toBe('dropped.md')
  })

  it('a folder dropped on the dashboard becomes a site, hidden files left out, as svc push does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'canvas-drop-'))
    const folder = join(dir, 'my-site')
    try {
      mkdirSync(join(folder, 'css'), { recursive: true })
      mkdirSync(join(folder, '.git'))
      writeFileSync(join(folder, 'index.html'), '<link rel=stylesheet href=css/a.css><h1>Hi</h1>')
      writeFileSync(join(folder, 'css', 'a.css'), 'h1 { color: rgb(0, 128, 0) }')
      writeFileSync(join(folder, '.git', 'HEAD'), 'ref: refs/heads/main\n')
      writeFileSync(join(folder, '.env'), 'SECRET=1\n')
      await page.goto(server.url + '/')
      // The browser's own drop of a folder from the file manager, with its directory entries.
      const cdp = await page.context().newCDPSession(page)
      const data = { items: [], files: [folder], dragOperationsMask: 1 }
      for (const type of ['dragEnter', 'dragOver', 'drop'] as const) {
        await cdp.send('Input.dispatchDragEvent', { type, x: 600, y: 400, data })
      }
      await page.waitForURL(/\/c\/[A-Za-z0-9]+$/, { timeout: 30_000 })
      expect(await page.textContent('.notice[role=status]')).toContain(
        '“my-site” is published: a site of 2 files.',
      )
      expect(await page.locator('table.files td.primary-cell a').allInnerTexts()).toEqual([
        'css/a.css',
        'index.html',
      ])
      const title = page.frameLocator('iframe').locator('h1')
      await expect
        .poll(() => title.evaluate((el) => getComputedStyle(el).color), { timeout: 10_000 })
        .toBe('rgb(0, 128, 0)')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('small things', () => {
  it('a favicon, and no page asks for anything that is not there', async () => {
    const icon = await fetch(server.url + '/favicon.ico')
    expect(icon.status).toBe(200)
    expect(icon.headers.get('content-type')).toBe('image/svg+xml')
    const missing: string[] = []
    page.on('response', (res) => {
      if (res.status() === 404) missing.push(res.url())
    })
    for (const path of ['/', '/settings', '/docs']) await page.goto(server.url + path)
    const id = await canvas('icon.html', '<p>x</p>')
    await page.goto(`${server.url}/c/${id}`)
    await page.frameLocator('iframe').locator('p').waitFor()
    expect(missing).toEqual([])
    expect(await page.locator('link[rel=icon]').getAttribute('href')).toBe('/favicon.svg')
  })

  it('/docs renders the Markdown of its descriptions, with contents and anchors that lead somewhere', async () => {
    await page.setViewportSize(LAPTOP)
    await page.goto(server.url + '/docs')
    const text = await page.locator('.docs-body').innerText()
    expect(text).not.toContain('`')
    expect(await page.locator('.docs-body p code').count()).toBeGreaterThan(0)
    const targets = await page
      .locator('nav.toc a')
      .evaluateAll((links) => links.map((a) => a.getAttribute('href')!))
    expect(targets.length).toBeGreaterThan(10)
    const anchors = await page
      .locator('a.anchor')
      .evaluateAll((links) => links.map((a) => a.getAttribute('href')!))
    expect(anchors.length).toBeGreaterThan(10)
    const lost = await page.evaluate(
      (hrefs) => hrefs.filter((href) => !document.getElementById(href.slice(1))),
      [...targets, ...anchors],
    )
    expect(lost).toEqual([])
  })

  it('signup and login say what Canvas is; a visitor at / meets the landing page', async () => {
    const stranger = await browser.newPerson()
    try {
      const p = await stranger.context.newPage()
      for (const path of ['/login', '/signup']) {
        await p.goto(server.url + path)
        expect(await p.locator('main').innerText()).toContain('Canvas publishes your files')
      }
      const res = await p.goto(server.url + '/')
      expect(res!.status()).toBe(200)
      expect(new URL(p.url()).pathname).toBe('/')
      expect(await p.locator('h1').innerText()).toBe('Publish a file. Get a link that stays live.')
      expect(await p.locator('figure.sample').count()).toBe(1)
      await p.click('main a:has-text("Log in")')
      await p.waitForURL(server.url + '/login')
      await p.goBack()
      await p.click('main a:has-text("Create an account")')
      await p.waitForURL(server.url + '/signup')
    } finally {
      await stranger.close()
    }
  })

  it('"New share link…" does not fold away the form it opened', async () => {
    const id = await canvas('dialog.md', '# Dialog\n')
    await share(id)
    await page.setViewportSize(LAPTOP)
    await page.goto(`${server.url}/c/${id}`)
    const button = page.locator('summary:has-text("New share link")')
    await settledClick(page, button)
    await page.locator('#share-expires').waitFor()
    // The button is gone while its form is open; Cancel folds it and gives the focus back.
    expect(await button.isVisible()).toBe(false)
    await page.click('details.dialog button:has-text("Cancel")')
    expect(await page.locator('#share-expires').isVisible()).toBe(false)
    expect(await button.evaluate((el) => el === document.activeElement)).toBe(true)
  })
})

/** The path of a new invite to the workspace of the tests' key (its join page). */
