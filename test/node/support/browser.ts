import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext } from 'playwright-core'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../../scripts/lib/chromium.mjs'

// Debian's Chromium, never a downloaded browser. `bypassCSP` lets a test inject a checker's script
// (axe-core) into the app's pages, whose policy allows none.

type Options = { colorScheme?: 'light' | 'dark'; bypassCSP?: boolean }

const contextOptions = (options: Options) => ({
  viewport: { width: 1280, height: 800 },
  colorScheme: options.colorScheme ?? 'light',
  bypassCSP: options.bypassCSP ?? false,
})

export type Person = { context: BrowserContext; close: () => Promise<void> }

/**
 * Chromium launched once for a test file; each person a test needs (the owner, a stranger) gets a
 * context of their own, with its own cookies, storage and cache, as a fresh profile would have.
 */
export async function launchBrowser() {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS })
  return {
    async newPerson(options: Options = {}): Promise<Person> {
      const context = await browser.newContext(contextOptions(options))
      return { context, close: () => context.close() }
    },
    close: () => browser.close(),
  }
}

/** A browser of its own with an empty profile on disk, for a test that needs one whole. */
export async function openBrowser(options: Options = {}) {
  const profile = mkdtempSync(join(tmpdir(), 'canvas-chromium-'))
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    ...contextOptions(options),
  })
  return {
    context,
    close: async () => {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    },
  }
}
