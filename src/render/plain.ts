import type { HtmlBudget } from './budget'
import { escapeHtml } from '../lib/escape'

// Escaping can make text six times longer (`"` is `&quot;`), so text is escaped a slice at a time,
// each slice small enough to fit what is left of the budget.
const SLICE = 64 * 1024
const WORST_EXPANSION = 6

/** Escaped text into the budget, as much as fits; returns how many UTF-16 units were written. */
export function writeEscaped(budget: HtmlBudget, text: string): number {
  let at = 0
  while (at < text.length) {
    let size = Math.min(SLICE, Math.floor(budget.room / WORST_EXPANSION), text.length - at)
    // Never half a surrogate pair at the end of a slice.
    const last = text.charCodeAt(at + size - 1)
    if (size > 1 && last >= 0xd800 && last <= 0xdbff) size--
    if (size < 1 || !budget.add(escapeHtml(text.slice(at, at + size)))) {
      budget.cut = true
      break
    }
    at += size
  }
  return at
}

/** Text as a preformatted block. */
export function renderPlain(budget: HtmlBudget, text: string) {
  budget.add('<pre class="plain">')
  writeEscaped(budget, text)
  budget.close('</pre>')
}
