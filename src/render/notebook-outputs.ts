import { ansiHtml } from './ansi'
import { HtmlBudget, utf8Length } from './budget'
import { drawnSource, mathSource, notesDrawings } from './drawing'
import { renderJson } from './json'
import { MARKDOWN_INPUT_LIMIT, markdownHtml } from './markdown'
import { escapeHtml } from '../lib/escape'
import { formatSize } from '../lib/format'
import { joined } from './notebook-fields'

// A code cell's outputs: stream text and errors (their terminal colours as styles), images (PNG,
// JPEG, GIF as they were sent; SVG as an image, where no script of it runs), HTML in a frame of its
// own with no script, Markdown, LaTeX, JSON, and Vega and Vega-Lite charts. Of a display's several
// types, the richest one shown is chosen, as Jupyter does.

/** One output shown at most; a larger one is named, not shown. */
export const MAX_OUTPUT_BYTES = 2 * 1024 * 1024

const VEGA = /^application\/vnd\.vega(?:lite)?\.v\d+\+json$/
const IMAGES = ['image/png', 'image/jpeg', 'image/gif']
const ORDER = [
  'text/html',
  'image/svg+xml',
  ...IMAGES,
  'text/markdown',
  'text/latex',
  'application/json',
  'text/plain',
]

type Output = {
  output_type?: unknown
  name?: unknown
  text?: unknown
  ename?: unknown
  evalue?: unknown
  traceback?: unknown
  data?: unknown
}

/**
 * Writes one output; false when the frame's budget is spent. Its Markdown's code blocks draw on
 * the notebook's highlighting `allowance`.
 */
export function notebookOutput(
  budget: HtmlBudget,
  value: unknown,
  allowance?: { left: number },
): boolean {
  const output = (value ?? {}) as Output
  switch (output.output_type) {
    case 'stream': {
      const text = joined(output.text)
      if (text.length > MAX_OUTPUT_BYTES) return written(budget, tooLarge(text.length, 'text'), '')
      const kind = output.name === 'stderr' ? ' stderr' : ''
      return written(budget, `<pre class="output${kind}">${ansiHtml(text)}</pre>`, 'text')
    }
    case 'error': {
      const text = errorText(output)
      if (text.length > MAX_OUTPUT_BYTES) return written(budget, tooLarge(text.length, 'error'), '')
      return written(budget, `<pre class="output error">${ansiHtml(text)}</pre>`, 'error')
    }
    case 'execute_result':
    case 'display_data':
      return displayed(budget, output.data, allowance)
    default:
      return true
  }
}

// Escaping and encoding make text longer, never shorter: an output whose text is already over the
// bound is named before any of that is done.
const tooLarge = (size: number, type: string) =>
  `<p class="notice">An output of ${formatSize(size)} (${escapeHtml(type)}) is too large to show here.</p>`

function errorText(output: Output): string {
  const traceback = Array.isArray(output.traceback) ? joinedLines(output.traceback) : ''
  return traceback || `${String(output.ename ?? 'Error')}: ${String(output.evalue ?? '')}`
}

const joinedLines = (lines: unknown[]) => lines.filter((l) => typeof l === 'string').join('\n')

/** The richest of a display's types this renderer shows. */
function displayed(budget: HtmlBudget, data: unknown, allowance?: { left: number }): boolean {
  if (!data || typeof data !== 'object') return true
  const bundle = data as Record<string, unknown>
  const vega = Object.keys(bundle).find((type) => VEGA.test(type))
  if (vega && bundle[vega] && typeof bundle[vega] === 'object') {
    return written(
      budget,
      `<div class="output">${drawnSource('vega', JSON.stringify(bundle[vega]))}</div>`,
      vega,
    )
  }
  const type = ORDER.find((t) => bundle[t] !== undefined)
  if (!type) return true
  if (type === 'application/json') return jsonOutput(budget, bundle[type])
  const text = joined(bundle[type])
  if (text.length > MAX_OUTPUT_BYTES) return written(budget, tooLarge(text.length, type), type)
  return written(budget, displayHtml(type, text, allowance), type)
}

function displayHtml(type: string, text: string, allowance?: { left: number }): string {
  switch (type) {
    case 'text/html':
      return htmlOutput(text)
    case 'image/svg+xml':
      return `<img class="output" alt="SVG output" src="data:image/svg+xml;charset=utf-8,${encodeURIComponent(text)}">`
    case 'text/markdown':
      return `<div class="output markdown">${markdownHtml(text.slice(0, MARKDOWN_INPUT_LIMIT), allowance)}</div>`
    case 'text/latex':
      return `<div class="output">${mathSource(text.trim().replace(/^\$\$?|\$\$?$/g, ''), true, true)}</div>`
    case 'text/plain':
      return `<pre class="output">${ansiHtml(text)}</pre>`
  }
  const base64 = text.replace(/\s+/g, '')
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64))
    return `<p class="notice">An image that is not valid base64.</p>`
  return `<img class="output" alt="" src="data:${type};base64,${base64}">`
}

// An HTML output's frame cannot be measured from outside (its origin is its own), so its height
// is guessed from its rows and lines; it can be resized, and scrolls.
const ROW_HEIGHT = 26
const MAX_HEIGHT = 600
const OUTPUT_STYLE =
  '<style>:root{color-scheme:light}body{margin:8px;font:13px/1.45 system-ui,sans-serif;color:#1f2328}' +
  'table{border-collapse:collapse}th,td{padding:4px 10px;border-bottom:1px solid #d1d9e0;text-align:right}' +
  'thead th{border-bottom:2px solid #afb8c1}</style>'

/**
 * An HTML output (a DataFrame's table, a library's report) in a frame of its own, sandboxed
 * without scripts: its markup shows, its code never runs, and the frame's policy holds inside too.
 */
function htmlOutput(html: string): string {
  const rows = (html.match(/<tr[\s>]|<br|<p[\s>]|<li[\s>]|<h\d/gi) ?? []).length
  const height = Math.min(MAX_HEIGHT, 24 + Math.max(2, rows) * ROW_HEIGHT)
  return `<iframe class="html-output" sandbox="allow-popups allow-popups-to-escape-sandbox" style="height:${height}px" srcdoc="${escapeHtml(OUTPUT_STYLE + html)}" title="HTML output"></iframe>`
}

function jsonOutput(budget: HtmlBudget, value: unknown): boolean {
  const own = new HtmlBudget(MAX_OUTPUT_BYTES)
  renderJson(own, JSON.stringify(value) ?? 'null')
  return written(budget, `<div class="output">${own}</div>`, 'application/json')
}

/** An output in the budget, or its note when it alone is larger than an output may be. */
function written(budget: HtmlBudget, html: string, type: string): boolean {
  const size = utf8Length(html)
  const shown = size > MAX_OUTPUT_BYTES ? tooLarge(size, type) : html
  if (!budget.add(shown)) return false
  notesDrawings(budget, shown)
  return true
}
