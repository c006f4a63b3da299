import { HtmlBudget, type Drawing } from './budget'
import { renderCsv } from './csv'
import { renderMermaid, renderVega } from './drawing'
import { escapeHtml } from '../lib/escape'
import { renderJson } from './json'
import type { NotebookInput } from './notebook'
import { languageInTail, NOTEBOOK_TAIL } from './notebook-language'
import { renderPlain } from './plain'

// Markdown, code and notebooks bring their parsers (marked, highlight.js and its twenty languages,
// the streaming JSON parser): loaded when a frame first needs them, so that every other request,
// and the Worker's start, runs none of their setup (BENCHMARKS.md: cold start).
const markdown = () => import('./markdown')
const code = () => import('./code')
const notebook = () => import('./notebook')

/** A frame's body, and what its scripts are to draw in it (render/drawing.ts). */
export type Body = { html: string; draws: Drawing[] }

/**
 * The body of a frame for a text file, at most MAX_FRAME_HTML_BYTES whatever the input. Cut at
 * the budget, it says so first, with `download` (the whole file) a click away.
 */
export function renderTextBody(
  rendererId: string,
  ext: string,
  text: string,
  download: string,
): Promise<Body> {
  return bounded(download, text, (budget) => renderWith(budget, rendererId, ext, text))
}

/** The body of a notebook's frame, read as it streams in (render/notebook.ts). */
export function renderNotebookBody(input: NotebookInput, download: string): Promise<Body> {
  return bounded(download, '', async (budget) => (await notebook()).renderNotebook(budget, input))
}

async function bounded(
  download: string,
  text: string,
  write: (budget: HtmlBudget) => Promise<void> | void,
): Promise<Body> {
  let budget = new HtmlBudget()
  try {
    await write(budget)
  } catch {
    // Pathological input (nesting deep enough to exhaust the stack) is shown as text, never a 500.
    budget = new HtmlBudget()
    budget.add('<p class="notice">This file could not be rendered; shown as text.</p>')
    renderPlain(budget, text)
  }
  const draws = [...budget.draws]
  if (!budget.cut) return { html: budget.toString(), draws }
  const note = `<p class="notice">Too large to show in full; this is the beginning. <a href="${escapeHtml(download)}" target="_blank" rel="noopener">Download the file</a> for all of it.</p>`
  return { html: note + budget.toString(), draws }
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
    case 'mermaid':
      return renderMermaid(budget, text)
    case 'vega':
      return renderVega(budget, text)
    case 'notebook':
      return (await notebook()).renderNotebook(budget, {
        chunks: [text],
        language: languageInTail(text.slice(-NOTEBOOK_TAIL)),
      })
    default:
      return renderPlain(budget, text)
  }
}
