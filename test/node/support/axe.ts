import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'

const SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

type Violation = { id: string; impact: string; nodes: { target: string[] }[] }

/**
 * axe-core's serious and critical violations on the page as it is now (all its rules, or only
 * `rules`), its frames left out: they hold the canvas, not the app. axe runs in the page itself,
 * put there through the DevTools protocol, which the page's policy does not govern; only the
 * violations come back in full, not every element that passed.
 */
export async function seriousViolations(page: Page, rules?: string[]): Promise<Violation[]> {
  // Once a document: a check of the same page in the other colour scheme finds it there.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(SOURCE)
  const violations = await page.evaluate(async (rules) => {
    const axe = (window as unknown as { axe: { run: Function } }).axe
    const result = await axe.run(
      { exclude: [['iframe']] },
      {
        resultTypes: ['violations'],
        iframes: false,
        ...(rules ? { runOnly: { type: 'rule', values: rules } } : {}),
      },
    )
    return result.violations as Violation[]
  }, rules)
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
}

/**
 * The serious violations of a page shown in `colorScheme`: every rule in the light scheme; in the
 * dark, contrast alone, since the dark scheme changes only colour variables (web-layout.test.ts
 * holds the stylesheets to that).
 */
export function schemeViolations(page: Page, colorScheme: 'light' | 'dark') {
  return seriousViolations(page, colorScheme === 'dark' ? ['color-contrast'] : undefined)
}
