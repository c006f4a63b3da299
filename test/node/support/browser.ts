import { chromium, type BrowserContext } from 'playwright-core'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../../scripts/lib/chromium.mjs'

// Debian's Chromium, never a downloaded browser.

export type Person = { context: BrowserContext; close: () => Promise<void> }

/**
 * Chromium launched once for a test file; each person a test needs (the owner, a stranger) gets a
 * context of their own, with its own cookies, storage and cache, as a fresh profile would have.
 */
export async function launchBrowser() {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS })
  return {
    async newPerson(): Promise<Person> {
      const context = await browser.newContext({
        viewport: { width: 1280, height: 800 },
        colorScheme: 'light',
      })
      return { context, close: () => context.close() }
    },
    close: () => browser.close(),
  }
}
