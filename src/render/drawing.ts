import type { HtmlBudget } from './budget'
import { escapeHtml } from '../lib/escape'

// What a frame draws in the browser rather than on the server: Mermaid diagrams, Vega and
// Vega-Lite charts, and math. The server writes each source as text in an element its drawing
// script finds (assets/draw/), and notes in the budget that the frame needs that script; the frame
// loads it from the deployment (src/web/frames/content.ts), and the source stays readable if it
// does not run. A frame without any loads nothing.

/** A source its script replaces by a drawing, shown as text until then. */
export function drawnSource(kind: 'mermaid' | 'vega', source: string): string {
  return `<pre class="${kind}-source">${escapeHtml(source)}</pre>`
}

/**
 * A formula, typeset in the browser; `display`: set on a line of its own; `block`: a block of the
 * document (else inline in its paragraph, where a <div> would split it).
 */
export function mathSource(tex: string, display: boolean, block = false): string {
  const tag = block ? 'div' : 'span'
  return `<${tag} class="math${display ? ' display' : ''}">${escapeHtml(tex)}</${tag}>`
}

/** Marks what the HTML written by the Markdown renderer holds to draw. */
export function notesDrawings(budget: HtmlBudget, html: string) {
  // Raw HTML of a document is escaped, so only the renderer itself writes these tags.
  if (html.includes('<pre class="mermaid-source">')) budget.draws.add('mermaid')
  if (html.includes('class="math')) budget.draws.add('math')
  if (html.includes('<pre class="vega-source">')) budget.draws.add('vega')
}

/** A `.mmd` file: its one diagram. */
export function renderMermaid(budget: HtmlBudget, source: string) {
  if (!budget.add(`<div class="drawing">${drawnSource('mermaid', source)}</div>`)) return
  budget.draws.add('mermaid')
}

/**
 * A Vega or Vega-Lite specification: its chart. JSON that does not parse is shown with the
 * parser's reason here; what the chart library refuses, the frame shows the same way.
 */
export function renderVega(budget: HtmlBudget, source: string) {
  try {
    JSON.parse(source)
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    budget.add(`<p class="notice">This chart could not be drawn: ${escapeHtml(reason)}</p>`)
    budget.add(`<pre>${escapeHtml(source)}</pre>`)
    return
  }
  if (!budget.add(`<div class="drawing">${drawnSource('vega', source)}</div>`)) return
  budget.draws.add('vega')
}
