import { HtmlBudget } from './budget'
import { renderCsv } from './csv'
import { escapeHtml } from '../lib/escape'
import { renderJson } from './json'
import { renderPlain } from './plain'

// Markdown and code bring their parsers (marked, highlight.js and its twenty languages): loaded
// when a frame first needs them, so that every other request, and the Worker's start, runs none
// of their setup (BENCHMARKS.md: cold start).
const markdown = () => import('./markdown')
const code = () => import('./code')

/**
 * The body of a frame for a text file, at most MAX_FRAME_HTML_BYTES whatever the input. Cut at
 * the budget, it says so first, with `download` (the whole file) a click away.
 */
export async function renderTextBody(
  rendererId: string,
  ext: string,
  text: string,
  download: string,
): Promise<string> {
  let budget = new HtmlBudget()
  try {
    await renderWith(budget, rendererId, ext, text)
  } catch {
    // Pathological input (nesting deep enough to exhaust the stack) is shown as text, never a 500.
    budget = new HtmlBudget()
    budget.add('<p class="notice">This file could not be rendered; shown as text.</p>')
    renderPlain(budget, text)
  }
  if (!budget.cut) return budget.toString()
  return `<p class="notice">Too large to show in full; this is the beginning. <a href="${escapeHtml(download)}" target="_blank" rel="noopener">Download the file</a> for all of it.</p>${budget}`
}

async function renderWith(budget: HtmlBudget, rendererId: string, ext: string, text: string) {
  switch (rendererId) {
    case 'markdown':
      return (await markdown()).renderMarkdown(budget, text)
    case 'code':
      return (await code()).renderCode(budget, text, ext)
    case 'json':
      return renderJson(budget, text)
    case 'csv':
      return renderCsv(budget, text, ext)
    default:
      return renderPlain(budget, text)
  }
}
