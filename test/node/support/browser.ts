import { existsSync } from 'node:fs'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import {
  CHROMIUM_ARGS,
  CHROMIUM_PATH,
  HEADLESS_SHELL_PATH,
} from '../../../scripts/lib/chromium.mjs'
import { clientAddress } from './dev-server'

// Debian's Chromium, never a downloaded browser.

export type Person = { context: BrowserContext; close: () => Promise<void> }

/**
 * Chromium launched once for a test file; each person a test needs (the owner, a stranger) gets a
 * context of their own, with its own cookies, storage and cache, as a fresh profile would have,
 * and a client address of their own (clientAddress) unless `address` says otherwise: OAuth over
 * http is served to the machine itself alone (ON_THIS_MACHINE).
 * The headless shell unless the test needs what only the whole browser has (`pdfViewer`), or the
 * shell is not installed (scripts/ensure-chromium.mjs installs it when it can).
 */
export async function launchBrowser(options: { pdfViewer?: boolean } = {}) {
  const browser = await chromium.launch({
    executablePath:
      options.pdfViewer || !existsSync(HEADLESS_SHELL_PATH) ? CHROMIUM_PATH : HEADLESS_SHELL_PATH,
    args: CHROMIUM_ARGS,
  })
  return {
    async newPerson(
      storageState?: Awaited<ReturnType<BrowserContext['storageState']>>,
      { address = clientAddress() } = {},
    ): Promise<Person> {
      const context = await browser.newContext({
        viewport: { width: 1280, height: 800 },
        colorScheme: 'light',
        storageState,
        extraHTTPHeaders: { 'CF-Connecting-IP': address },
      })
      return { context, close: () => context.close() }
    },
    close: () => browser.close(),
  }
}

/**
 * Signs up on the page as a person does, then makes a write key on the Settings page: the key,
 * for the API calls that set the scene.
 */
export async function signUpWithKey(page: Page, url: string, email: string, password: string) {
  await page.goto(url + '/signup')
  await page.fill('#email', email)
  await page.fill('#password', password)
  await page.click('button[type=submit]')
  await page.waitForURL(url + '/')
  await page.goto(url + '/settings')
  await page.fill('#key-name', 'tests')
  await page.selectOption('#key-scope', 'write')
  await page.click('form[action="/settings/keys"] button[type=submit]')
  await page.waitForURL(url + '/settings')
  return (await page.textContent('#copy-0'))!.trim()
}
