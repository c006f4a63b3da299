import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { schemeViolations } from './support/axe'
import { launchBrowser } from './support/browser'
import { SETUP_MS, sharedDevServer } from './support/dev-server'

// The documentation as a person reads it on the deployment (/docs/<page>), in real Chromium on a
// phone and a laptop, light and dark: readable at both widths, its links within it working, and
// nothing axe finds serious.

let url: string
let browser: Awaited<ReturnType<typeof launchBrowser>>

beforeAll(async () => {
  url = (await sharedDevServer()).url
  browser = await launchBrowser()
}, SETUP_MS)

afterAll(async () => {
  await browser?.close()
})

describe('the documentation pages', () => {
  for (const [width, height] of [
    [390, 844],
    [1280, 800],
  ]) {
    for (const colorScheme of ['light', 'dark'] as const) {
      it(`${width} px, ${colorScheme}: fit the width, lead from page to page, axe finds nothing serious`, async () => {
        const person = await browser.newPerson()
        const page = await person.context.newPage()
        await page.setViewportSize({ width, height })
        await page.emulateMedia({ colorScheme })
        await page.goto(`${url}/docs/readme`)
        expect(await page.locator('h1').first().textContent()).toBe('Canvas')
        // Nothing wider than the screen but what scrolls in its own box (code, tables).
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - innerWidth,
        )
        expect(overflow).toBeLessThanOrEqual(0)
        await page.locator('.doc a[href="/docs/cli"]').first().click()
        await page.waitForURL(`${url}/docs/cli`)
        await page.locator('.doc a[href="#install-and-first-steps"]').click()
        expect(await page.evaluate(() => location.hash)).toBe('#install-and-first-steps')
        const serious = await schemeViolations(page, colorScheme)
        expect(serious.map((v) => `${v.id} ${v.nodes[0]?.target}`)).toEqual([])
        await person.close()
      })
    }
  }
})
