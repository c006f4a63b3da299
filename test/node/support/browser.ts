import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext } from 'playwright-core'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../../scripts/lib/chromium.mjs'

// Debian's Chromium with its own empty profile; never a downloaded browser. `bypassCSP` lets a
// test inject a checker's script (axe-core) into the app's pages, whose policy allows none.

export async function openBrowser(
  options: { colorScheme?: 'light' | 'dark'; bypassCSP?: boolean } = {},
) {
  const profile = mkdtempSync(join(tmpdir(), 'canvas-chromium-'))
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 800 },
    colorScheme: options.colorScheme ?? 'light',
    bypassCSP: options.bypassCSP ?? false,
  })
  return {
    context,
    close: async () => {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    },
  }
}
