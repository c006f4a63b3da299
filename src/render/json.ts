import type { HtmlBudget } from './budget'
import { escapeHtml } from '../lib/escape'
import { renderPlain, writeEscaped } from './plain'

// Pretty JSON as nested <details> elements: collapsible without a line of script. Written into
// the budget as it goes: a wide array stops at the budget, a deep one below MAX_DEPTH.

const MAX_OPEN_DEPTH = 2
const MAX_DEPTH = 100

export function renderJson(budget: HtmlBudget, source: string) {
  if (deeperThan(source, MAX_DEPTH * 10)) {
    // Parsing millions of nested brackets alone takes most of a second: shown as text instead.
    budget.add(`<p class="notice">Nested too deeply to show as a tree; shown as text.</p>`)
    return renderPlain(budget, source)
  }
  let value: unknown
  try {
    value = JSON.parse(source)
  } catch (err) {
    budget.add(
      `<p class="notice">Not valid JSON (${escapeHtml(String((err as Error).message))}); shown as text.</p>`,
    )
    return renderPlain(budget, source)
  }
  const state = { tooDeep: false }
  budget.add('<div class="json">')
  node(budget, value, 0, state)
  budget.close('</div>')
  if (state.tooDeep) {
    budget.add(`<p class="notice">Nesting deeper than ${MAX_DEPTH} levels is shown as … .</p>`)
  }
}

function node(budget: HtmlBudget, value: unknown, depth: number, state: { tooDeep: boolean }) {
  if (value !== null && typeof value === 'object') {
    const isArray = Array.isArray(value)
    const entries = isArray ? null : Object.entries(value)
    const length = isArray ? value.length : entries!.length
    const [open, close] = isArray ? ['[', ']'] : ['{', '}']
    if (length === 0) return budget.add(`<span class="p">${open}${close}</span>`)
    if (depth >= MAX_DEPTH) {
      state.tooDeep = true
      return budget.add(`<span class="p">${open}…${close}</span>`)
    }
    const unit = isArray ? 'item' : 'key'
    const summary = `${length} ${unit}${length === 1 ? '' : 's'}`
    const isOpen = depth < MAX_OPEN_DEPTH ? ' open' : ''
    const head = `<details${isOpen}><summary><span class="p">${open}</span><span class="count">${summary}</span></summary><ul>`
    if (!budget.add(head)) return false
    for (let i = 0; i < length; i++) {
      const key = entries
        ? `<span class="k">${escapeHtml(JSON.stringify(entries[i][0]))}</span>: `
        : ''
      if (!budget.add(`<li>${key}`)) break
      node(budget, entries ? entries[i][1] : (value as unknown[])[i], depth + 1, state)
      budget.close('</li>')
      if (budget.cut) break
    }
    budget.close(`</ul><span class="p">${close}</span></details>`)
    return true
  }
  if (typeof value === 'string') {
    // A string may be megabytes long: written a slice at a time, cut where the budget ends.
    if (!budget.add('<span class="s">')) return false
    writeEscaped(budget, JSON.stringify(value))
    budget.close('</span>')
    return !budget.cut
  }
  if (typeof value === 'number') return budget.add(`<span class="n">${value}</span>`)
  if (typeof value === 'boolean') return budget.add(`<span class="b">${value}</span>`)
  return budget.add('<span class="null">null</span>')
}

/** Whether brackets outside strings nest deeper than `limit`: one pass, no parse. */
function deeperThan(source: string, limit: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i)
    if (inString) {
      if (c === 92)
        i++ // a backslash escapes the next character
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 || c === 123) {
      if (++depth > limit) return true
    } else if (c === 93 || c === 125) depth--
  }
  return false
}
