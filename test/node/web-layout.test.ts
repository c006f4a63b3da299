import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { callApi, type ApiInit } from './support/api.ts'
import { schemeViolations } from './support/axe'
import { launchBrowser, signUpWithKey, type Person } from './support/browser'
import { ON_THIS_MACHINE, sharedDevServer, SETUP_MS } from './support/dev-server'
import { publisher } from './support/publish.ts'

// Every page of the web app, as an owner and as a visitor, on a phone (390x844) and a laptop
// (1280x800), light and dark, in real Chromium against a real `wrangler dev`: nothing wider than
// the window, menus and dialogs inside it, buttons of a row even, a phone's chrome leaving the
// content its room and every control a finger's size, and axe-core finding nothing serious.
// One walk a size holds every check, since loading the pages is what costs: each page is loaded
// once and checked in both schemes; in the dark, contrast alone, since the dark scheme changes
// nothing but colours (held by the first test).

const PHONE = { width: 390, height: 844 }
const LAPTOP = { width: 1280, height: 800 }
const SIZES = [PHONE, LAPTOP]
const SCHEMES = ['light', 'dark'] as const
/** The most a phone's chrome (header, bars) may take above the content. */
const CHROME_MAX = 120
/** The least a control may measure each way on a phone. */
const TOUCH = 44

let server: { url: string }
let browser: Awaited<ReturnType<typeof launchBrowser>>
let key: string
const email = 'layout@example.com'
const password = 'correct horse battery'

beforeAll(async () => {
  server = await sharedDevServer()
  browser = await launchBrowser()
}, SETUP_MS)

afterAll(async () => {
  await browser?.close()
})

const api = (path: string, init?: ApiInit) => callApi(server.url, key, path, init)
const { canvas, newVersion, share, site, inviteLink } = publisher(api)

/** A chat app asking to connect (its consent page's path), and one connected (a Settings row). */
async function consentPath(p: Page) {
  // It comes back to this server's own home page, a loopback address it may register.
  const registered = await fetch(`${server.url}/oauth/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_name: 'A chat app', redirect_uris: [`${server.url}/`] }),
  })
  const client = (await registered.json()) as { client_id: string }
  const consent = `/oauth/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: `${server.url}/`,
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    state: 'layout',
  })}`
  await p.goto(server.url + consent)
  await p.click('button[value=approve]')
  await p.waitForURL((url) => url.searchParams.get('state') === 'layout')
  return consent
}

/** Rows of buttons whose heights differ, or that sit on one line at different middles. */
const unevenRows = (p: Page) =>
  p.evaluate(() => {
    const rows = document.querySelectorAll('.actions, .row, .bar, header.top nav, .pager')
    const found: string[] = []
    for (const row of Array.from(rows)) {
      const buttons = Array.from(
        row.querySelectorAll(
          ':scope > button, :scope > .btn, :scope > form > button, :scope > details > summary.btn, :scope > div > button',
        ),
      ).filter((el) => (el as HTMLElement).offsetParent !== null)
      const boxes = buttons.map((el) => el.getBoundingClientRect())
      const heights = new Set(boxes.map((b) => Math.round(b.height)))
      const name = row.className || row.tagName
      if (heights.size > 1) found.push(`${name}: heights ${[...heights]}`)
      const middle = (box: DOMRect) => box.top + box.height / 2
      for (const a of boxes) {
        for (const b of boxes) {
          const sameLine = a.top < b.bottom && b.top < a.bottom
          if (sameLine && Math.abs(middle(a) - middle(b)) > 1) {
            found.push(`${name}: middles ${middle(a)} and ${middle(b)}`)
          }
        }
      }
    }
    return found
  })

/**
 * The declarations of the app's stylesheets under `prefers-color-scheme: dark` that could move
 * anything: all but custom properties of `:root` whose value is a colour or a shadow.
 */
function darkLayoutRules() {
  const moving: string[] = []
  for (const name of readdirSync('assets').filter((file) => file.endsWith('.css'))) {
    const css = readFileSync(join('assets', name), 'utf8')
    for (const block of css.split(/@media\s*\(prefers-color-scheme:\s*dark\)/).slice(1)) {
      const body = block.match(/^\s*\{\s*:root\s*\{([^}]*)\}\s*\}/)
      if (!body) {
        moving.push(`${name}: a dark block that is not one :root of variables`)
        continue
      }
      for (const declaration of body[1]
        .split(';')
        .map((d) => d.trim())
        .filter(Boolean)) {
        const [property, value] = declaration.split(/:(.*)/s).map((part) => part.trim())
        const colour = /^(#[0-9a-f]{3,8}|rgba?\([^)]*\))$/i.test(value)
        const shadow = /^(-?\d+(px)? ){2,3}\d*(px)? ?rgba?\([^)]*\)$/i.test(value)
        if (!property.startsWith('--') || !(colour || shadow))
          moving.push(`${name}: ${declaration}`)
      }
    }
  }
  return moving
}

it('the dark scheme changes colours alone: its pages are laid out as the light ones', () => {
  expect(darkLayoutRules()).toEqual([])
})

describe('every page on a phone and a laptop, light and dark', () => {
  let owned: string[] = []
  let visitor: string[] = []
  let owner: Person
  let stranger: Person
  let ownerPage: Page
  let strangerPage: Page

  beforeAll(async () => {
    // On the machine itself: its consent page is OAuth's, served over http to loopback alone.
    owner = await browser.newPerson(undefined, ON_THIS_MACHINE)
    ownerPage = await owner.context.newPage()
    key = await signUpWithKey(ownerPage, server.url, email, password)
    const id = await canvas('A rather long title for a quarterly report that goes on.md', '# One\n')
    await newVersion(id, 'report.md', '# Two\n\nMore text.\n')
    await share(id, { expires_in: '7d', max_views: 5 })
    const locked = await share(id, { password: 'pass word' })
    const limited = await share(id, { max_views: 3 })
    // A short title is read whole on a phone, beside the versions' choice and the comments.
    const notebook = await canvas(
      'latency.ipynb',
      JSON.stringify({ cells: [{ cell_type: 'markdown', source: '# Latency' }], nbformat: 4 }),
    )
    const open = await canvas('public.txt', 'for all')
    await api(`/v1/canvases/${open}`, { method: 'PATCH', json: { visibility: 'public' } })
    const followed = await share(open)
    const siteId = await site('Site', {
      'index.html': ['<h1>Site</h1>', 'html', 'text/html'],
      'reports/2026/quarterly-results-appendix-with-a-rather-long-file-name.csv': [
        'a,b\n1,2\n',
        'csv',
        'text/csv',
      ],
    })
    const joinPath = await inviteLink()
    owned = [
      '/',
      '/?q=report',
      '/settings',
      '/settings/members',
      '/settings/activity',
      joinPath,
      `/c/${id}`,
      `/c/${id}?v=1`,
      `/c/${id}/full`,
      `/c/${siteId}`,
      `/c/${notebook}`,
      `/c/${id}/delete`,
      `/c/${id}/readers`,
      '/docs',
      '/c/nosuchcanvas1',
      `/c/${id}/diff?from=1&to=9`,
      // The diff side by side on any screen (its lines scroll, never the page), and rendered.
      `/c/${id}/diff?from=1&to=2`,
      `/c/${id}/diff?from=1&to=2&view=split`,
      `/c/${id}/diff?from=1&to=2&view=rendered`,
      await consentPath(ownerPage),
    ]
    visitor = [
      '/',
      '/login',
      '/signup',
      joinPath,
      `/c/${open}`,
      `/c/${open}/full`,
      `/s/${followed}`,
      `/s/${followed}/full`,
      `/s/${locked}`,
      `/s/${limited}`,
    ]
    stranger = await browser.newPerson()
    strangerPage = await stranger.context.newPage()
  }, 120_000)

  afterAll(async () => {
    await owner?.close()
    await stranger?.close()
  })

  /** Every menu and dialog opened in turn: what lies outside the window, and small controls. */
  const openEach = (p: Page, phone: boolean) =>
    p.evaluate(
      async ({ phone, touch }) => {
        const problems: string[] = []
        const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve(null)))
        const all = Array.from(document.querySelectorAll<HTMLDetailsElement>('details'))
        for (const details of all) {
          const summary = details.querySelector(':scope > summary') as HTMLElement | null
          if (!summary || !summary.checkVisibility({ visibilityProperty: true })) continue
          summary.scrollIntoView({ block: 'center' })
          summary.click()
          await frame()
          await frame()
          const name = `${details.className} "${summary.innerText.trim()}"`
          const body = details.matches('.menu')
            ? details.querySelector<HTMLElement>(':scope > .items')!
            : details
          const box = body.getBoundingClientRect()
          const [w, h] = [window.innerWidth, window.innerHeight]
          if (box.left < 0 || box.right > w) {
            problems.push(`${name}: ${Math.round(box.left)} to ${Math.round(box.right)} of ${w}`)
          }
          if (details.matches('.menu') && (box.top < 0 || box.bottom > h)) {
            problems.push(`${name}: top ${Math.round(box.top)}, bottom ${Math.round(box.bottom)}`)
          }
          if (phone) {
            for (const el of Array.from(
              body.querySelectorAll<HTMLElement>('a, button, summary, select'),
            )) {
              if (!el.checkVisibility({ visibilityProperty: true })) continue
              const r = el.getBoundingClientRect()
              if (r.width < touch || r.height < touch) {
                problems.push(`${name} > "${el.innerText.trim()}": ${r.width}x${r.height}`)
              }
            }
          }
          details.open = false
          await frame()
        }
        return problems
      },
      { phone, touch: TOUCH },
    )

  /**
   * The app's controls smaller than a finger: every visible button, menu button, list of choices,
   * and link but a link inside a sentence (which WCAG leaves the size of its text).
   */
  const smallControls = (p: Page) =>
    p.evaluate((touch) => {
      const small: string[] = []
      const controls = document.querySelectorAll<HTMLElement>(
        'a, button, summary, select, label.btn',
      )
      for (const el of Array.from(controls)) {
        // Not in a closed menu (whose contents Chromium lays out, unseen), nor hidden.
        if (!el.checkVisibility({ visibilityProperty: true })) continue
        const box = el.getBoundingClientRect()
        const inSentence =
          el.tagName === 'A' &&
          Array.from(el.parentElement?.childNodes ?? []).some(
            (n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim() !== '',
          )
        if (inSentence) continue
        if (box.width < touch || box.height < touch) {
          const name = (el.innerText || el.getAttribute('aria-label') || '').trim().slice(0, 40)
          small.push(`${el.tagName.toLowerCase()} "${name}": ${box.width}x${box.height}`)
        }
      }
      return small
    }, TOUCH)

  /** A title of a few words cut short in its bar, which has room to give it. */
  const cutTitles = (p: Page) =>
    p.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLElement>('.bar .title'))
        .filter((title) => (title.getAttribute('title') ?? '').length <= 16)
        .filter((title) => {
          const stem = title.querySelector<HTMLElement>('.stem')!
          return stem.scrollWidth > stem.clientWidth
        })
        .map((title) => `the title "${title.getAttribute('title')}" is cut`),
    )

  /** Where the content starts: the frame of a canvas, else the first thing in <main>. */
  const contentTop = (p: Page) =>
    p.evaluate(() => {
      window.scrollTo(0, 0)
      const frame = document.querySelector('iframe')
      const first = frame ?? document.querySelector('main')?.firstElementChild
      return first ? Math.round(first.getBoundingClientRect().top) : -1
    })

  /** What the walk finds wrong with the layout of the page at `path`, as it is now. */
  async function layoutProblems(p: Page, phone: boolean, path: string) {
    const found: string[] = []
    const width = await p.evaluate(() => document.documentElement.scrollWidth)
    if (width > p.viewportSize()!.width) found.push(`${width} px wide`)
    found.push(...(await unevenRows(p)))
    found.push(...(await cutTitles(p)))
    if (phone) {
      // A comparison's choices (which versions, which view) are what its page is for.
      const top = path.includes('/diff?') ? 0 : await contentTop(p)
      if (top > CHROME_MAX) found.push(`the content starts at ${top} px`)
      found.push(...(await smallControls(p)))
    }
    found.push(...(await openEach(p, phone)))
    return found
  }

  const axe = async (p: Page, colorScheme: (typeof SCHEMES)[number]) =>
    (await schemeViolations(p, colorScheme)).map(
      (v) => `${v.id}: ${v.nodes.map((n) => n.target).join(' ')}`,
    )

  /** The page in `colorScheme`, once its colours have eased into it. */
  async function showIn(p: Page, colorScheme: (typeof SCHEMES)[number]) {
    await p.emulateMedia({ colorScheme })
    await p.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished)))
  }

  for (const size of SIZES) {
    const phone = size === PHONE
    const layout = `nothing too wide, rows even, menus and dialogs in the window, ${phone ? 'the content within 120 px and every control 44 px, ' : ''}`
    it(`${size.width}x${size.height}: ${layout}no serious axe violation, light and dark`, async () => {
      const found: string[] = []
      for (const [p, paths] of [
        [ownerPage, owned],
        [strangerPage, visitor],
      ] as const) {
        await p.setViewportSize(size)
        for (const path of paths) {
          await showIn(p, 'light')
          await p.goto(server.url + path)
          for (const problem of await layoutProblems(p, phone, path)) {
            found.push(`${path}: ${problem}`)
          }
          // Each scheme on the page as it was loaded: the dark one changes colour variables
          // alone (held by the first test), so in the dark contrast is what there is to check.
          for (const colorScheme of SCHEMES) {
            await showIn(p, colorScheme)
            for (const violation of await axe(p, colorScheme)) {
              found.push(`${path} (${colorScheme}): ${violation}`)
            }
          }
        }
      }
      expect(found).toEqual([])
    }, 300_000)
  }
})
