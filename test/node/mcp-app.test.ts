import type { Frame, Page } from 'playwright-core'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { APP_HTML } from '../../src/api/mcp-app'
import { launchBrowser, type Person } from './support/browser'

// The MCP Apps view of a canvas in Chromium, as a chat app shows it: in a sandboxed frame of
// another origin than the host's, under the policy the extension makes hosts apply when a view
// declares no domains, talking to the host by postMessage. The host here is a page of the test's
// own that plays the host's part of the protocol.

const HOST = 'http://host.test'
const SANDBOX = 'http://sandbox.test'

// The extension's default policy for a view that declares no domains, and what it blocks besides.
const DEFAULT_CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data:; media-src 'self' data:; connect-src 'none'; frame-src 'none'; " +
  "object-src 'none'; base-uri 'self'"

const HOST_PAGE = `<!doctype html>
<iframe id="view" sandbox="allow-scripts" src="${SANDBOX}/view.html" style="width:480px"></iframe>
<script>
  window.received = []
  window.openLinks = 'allow'
  const frame = document.getElementById('view')
  const toView = (message) => frame.contentWindow.postMessage({ jsonrpc: '2.0', ...message }, '*')
  window.sendResult = (params) => toView({ method: 'ui/notifications/tool-result', params })
  window.addEventListener('message', (event) => {
    if (event.source !== frame.contentWindow) return
    const message = event.data
    window.received.push(message)
    if (message.method === 'ui/initialize') {
      toView({
        id: message.id,
        result: {
          protocolVersion: '2026-01-26',
          hostInfo: { name: 'test-host', version: '1.0.0' },
          hostCapabilities: { openLinks: {} },
          hostContext: { theme: 'dark', styles: { variables: { '--color-text-primary': 'rgb(1, 2, 3)' } } },
        },
      })
    } else if (message.method === 'ui/open-link') {
      if (window.openLinks === 'allow') toView({ id: message.id, result: {} })
      else toView({ id: message.id, error: { code: -32000, message: 'Link opening denied by user' } })
    }
  })
</script>`

let browser: Awaited<ReturnType<typeof launchBrowser>>
let person: Person
let page: Page
let view: Frame

const received = () => page.evaluate(() => (window as any).received as any[])
const methods = async () => (await received()).map((m) => m.method)

const canvas = {
  canvas_id: 'abc123',
  owner_user_id: 'u1',
  title: 'Q3 report',
  ext: 'md',
  renderer_id: 'markdown',
  visibility: 'private',
  version: 3,
  size: 2048,
  created_at: '2026-11-20T10:00:00.000Z',
  updated_at: '2026-11-21T10:00:00.000Z',
  expires_at: null,
  view_url: 'https://canvas.example.com/c/abc123',
}

async function send(result: unknown) {
  await page.evaluate((r) => (window as any).sendResult(r), result)
}

beforeAll(async () => {
  browser = await launchBrowser()
  person = await browser.newPerson()
})

afterAll(async () => {
  await browser?.close()
})

beforeEach(async () => {
  page = await person.context.newPage()
  await page.route(`${HOST}/**`, (route) =>
    route.fulfill({ contentType: 'text/html', body: HOST_PAGE }),
  )
  await page.route(`${SANDBOX}/**`, (route) =>
    route.fulfill({
      contentType: 'text/html',
      headers: { 'Content-Security-Policy': DEFAULT_CSP },
      body: APP_HTML,
    }),
  )
  await page.goto(`${HOST}/`)
  view = page.frame({ url: `${SANDBOX}/view.html` })!
  // The handshake: initialize, then initialized; nothing is sent to the view before it.
  await expect.poll(methods).toContain('ui/notifications/initialized')
})

describe('the MCP Apps view of a canvas', () => {
  it('initializes with the host, takes its theme, and reports its size', async () => {
    const [init] = await received()
    expect(init).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      method: 'ui/initialize',
      params: { protocolVersion: '2026-01-26', appInfo: { name: 'canvas' } },
    })
    await expect.poll(methods).toContain('ui/notifications/size-changed')
    const style = await view.evaluate(() => ({
      scheme: document.documentElement.style.colorScheme,
      color: getComputedStyle(document.body).color,
    }))
    expect(style).toEqual({ scheme: 'dark', color: 'rgb(1, 2, 3)' })
    expect(await view.locator('#status').textContent()).toBe('Waiting for the canvas…')
    await page.close()
  })

  it('shows the canvas a tool answered, and asks the host to open its page', async () => {
    await send({ content: [{ type: 'text', text: '{}' }], structuredContent: canvas })
    await expect.poll(() => view.locator('#title').textContent()).toBe('Q3 report')
    expect(await view.locator('#kind').textContent()).toBe('MD · version 3')
    const facts = await view
      .locator('#facts')
      .evaluate((dl) => Array.from(dl.children, (c) => c.textContent))
    expect(facts).toEqual([
      'Visibility',
      'private',
      'Size',
      '2.0 KB',
      'Updated',
      expect.any(String),
      'Expires',
      'never',
    ])
    expect(await view.locator('#open').getAttribute('href')).toBe(canvas.view_url)
    await view.locator('#open').click()
    await expect
      .poll(async () => (await received()).find((m) => m.method === 'ui/open-link'))
      .toMatchObject({ params: { url: canvas.view_url } })
    expect(await view.locator('#note').isHidden()).toBe(true)

    // A host that refuses to open it: the address is shown to copy instead.
    await page.evaluate(() => ((window as any).openLinks = 'deny'))
    await view.locator('#open').click()
    await expect
      .poll(() => view.locator('#note').textContent())
      .toBe(`Open it in your browser: ${canvas.view_url}`)
    await page.close()
  })

  it('a site: its files and renderer from get_canvas', async () => {
    await send({
      content: [],
      structuredContent: {
        ...canvas,
        visibility: 'public',
        renderer: { renderer_id: 'html', name: 'HTML page' },
        items: [{ path: 'index.html' }, { path: 'a.css' }],
        main: 'index.html',
        expires_at: '2026-11-22T10:00:00.000Z',
      },
    })
    await expect.poll(() => view.locator('#kind').textContent()).toBe('HTML page · version 3')
    const facts = await view.locator('#facts').textContent()
    expect(facts).toContain('public: anyone with the link')
    expect(facts).toContain('Files2, main index.html')
    expect(facts).not.toContain('never')
    await page.close()
  })

  it('shows a hostile title as text, and links only to a web page', async () => {
    const title = "<img src=x onerror=\"parent.postMessage('pwned','*')\"><script>x()</script>"
    await send({
      content: [],
      structuredContent: { ...canvas, title, view_url: 'javascript:parent.postMessage(1,"*")' },
    })
    await expect.poll(() => view.locator('#title').textContent()).toBe(title)
    expect(await view.locator('#card img, #card script').count()).toBe(0)
    expect(await view.locator('#open').isHidden()).toBe(true)
    for (const bad of ['data:text/html,<b>x</b>', 'not a url', 42, null]) {
      await send({ content: [], structuredContent: canvas })
      await expect.poll(() => view.locator('#open').isVisible()).toBe(true)
      await send({ content: [], structuredContent: { ...canvas, view_url: bad } })
      await expect.poll(() => view.locator('#open').isHidden()).toBe(true)
    }
    expect(await received()).not.toContainEqual('pwned')
    await page.close()
  })

  it('shows a failed call’s message as text, and ignores messages from anyone but the host', async () => {
    await send({
      isError: true,
      content: [{ type: 'text', text: 'canvas_not_found: <b>gone</b>' }],
    })
    await expect
      .poll(() => view.locator('#status').textContent())
      .toBe('canvas_not_found: <b>gone</b>')
    expect(await view.locator('#card').isHidden()).toBe(true)
    // The view itself, or any frame other than its parent, cannot drive it. Messages to one
    // window arrive in order: once the second is seen, the view has handled the first.
    await view.evaluate(
      (c) =>
        new Promise((resolve) => {
          window.addEventListener('message', (event) => event.data === 'done' && resolve(null))
          const result = { structuredContent: c, content: [] }
          window.postMessage(
            { jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: result },
            '*',
          )
          window.postMessage('done', '*')
        }),
      canvas,
    )
    expect(await view.locator('#card').isHidden()).toBe(true)
    await page.close()
  })
})
