import { existsSync } from 'node:fs'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import {
  CHROMIUM_ARGS,
  CHROMIUM_PATH,
  HEADLESS_SHELL_PATH,
} from '../../../scripts/lib/chromium.mjs'
import { addressHeaders, clientAddress, sharedBrowserEndpoint } from './dev-server'

// Debian's Chromium, never a downloaded browser.

export type Person = { context: BrowserContext; close: () => Promise<void> }

/** The headless shell, or the whole browser where the shell is not installed. */
const shellPath = () => (existsSync(HEADLESS_SHELL_PATH) ? HEADLESS_SHELL_PATH : CHROMIUM_PATH)

/**
 * The Chromium a run's browser files share (test/node/support/global-setup.ts starts it when a
 * file first asks): each file connects to it, and starting one browser per file cost about as
 * much as a small file's tests.
 */
export function launchBrowserServer() {
  return chromium.launchServer({
    executablePath: shellPath(),
    args: CHROMIUM_ARGS,
    host: '127.0.0.1',
    port: 0,
  })
}

/**
 * Chromium for a test file: the run's shared one (launchBrowserServer), or a whole browser of its
 * own when the test needs what only that has (`pdfViewer`). Each person a test needs (the owner, a
 * stranger) gets a context of their own, with its own cookies, storage and cache, as a fresh
 * profile would have, and a client address of their own (clientAddress) unless `address` says
 * otherwise: OAuth over http is served to the machine itself alone (ON_THIS_MACHINE). Closing
 * closes the file's contexts, not the shared browser.
 */
export async function launchBrowser(options: { pdfViewer?: boolean } = {}) {
  const browser = options.pdfViewer
    ? await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS })
    : await chromium.connect(await sharedBrowserEndpoint())
  return {
    async newPerson(
      storageState?: Awaited<ReturnType<BrowserContext['storageState']>>,
      { address = clientAddress() as string | null } = {},
    ): Promise<Person> {
      const context = await browser.newContext({
        viewport: { width: 1280, height: 800 },
        colorScheme: 'light',
        storageState,
        extraHTTPHeaders: addressHeaders(address),
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
