import AxeBuilder from '@axe-core/playwright'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { openBrowser } from './support/browser'
import { startDevServer, type DevServer } from './support/dev-server'

// Pages at a phone's width and a laptop's, light and dark, in real Chromium: nothing wider than
// the window, and no serious or critical accessibility violation (axe-core). The pages listed are
// those that hold so far; the rest of the web app joins as its layout is fixed.

const PAGES = ['/', '/docs']
const SIZES = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
]

let server: DevServer
let browser: Awaited<ReturnType<typeof openBrowser>>
let page: Page

beforeAll(async () => {
  server = await startDevServer(['--var', 'SIGNUP:open'])
  browser = await openBrowser()
  page = await browser.context.newPage()
  // Signed in, with the long address a header must still fit.
  await page.goto(server.url + '/signup')
  await page.fill('#email', 'someone.with.a.rather.long.address@example.com')
  await page.fill('#password', 'correct horse battery')
  await page.click('button[type=submit]')
  await page.waitForURL(server.url + '/')
}, 90_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

describe('pages fit and pass axe', () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    for (const size of SIZES) {
      it(`at ${size.width} px, ${colorScheme}`, async () => {
        await page.emulateMedia({ colorScheme })
        await page.setViewportSize(size)
        for (const path of PAGES) {
          await page.goto(server.url + path)
          const width = await page.evaluate(() => document.documentElement.scrollWidth)
          expect(width, path).toBeLessThanOrEqual(size.width)
          // Contrast and names do not change with the width: axe runs once per scheme.
          if (size.width !== SIZES[0].width) continue
          const { violations } = await new AxeBuilder({ page }).analyze()
          const serious = violations.filter((v) => ['serious', 'critical'].includes(v.impact!))
          expect(
            serious.map((v) => `${path}: ${v.id} (${v.nodes.length})`),
            path,
          ).toEqual([])
        }
      })
    }
  }
})
