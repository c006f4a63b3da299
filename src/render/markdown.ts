import { Marked, type Tokens } from 'marked'
import { utf8Length, type HtmlBudget } from './budget'
import { HIGHLIGHT_LIMIT, highlight } from './code'
import { drawnSource, notesDrawings } from './drawing'
import { MATH } from './math'
import { escapeHtml } from '../lib/escape'
import { renderPlain } from './plain'

// GitHub-flavoured Markdown (tables, task lists, strikethrough, autolinks) rendered on the server.
// Raw HTML is shown as text, never interpreted, and only http(s), mailto and relative links and
// images survive; no script of the document runs either way. Fences marked `mermaid` and math
// (render/math.ts) are left for the frame's drawing scripts (render/drawing.ts).

const SAFE_URL = /^(https?:|mailto:|#|\/(?!\/)|\.{0,2}\/|[^:]*$)/i

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    html({ text }: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(text)
    },
    code({ text, lang }: Tokens.Code) {
      // All code blocks of a document share one highlighting allowance; the rest stay plain.
      const language = (lang ?? '').trim().split(/\s+/)[0]
      if (language === 'mermaid')
        return `<div class="drawing">${drawnSource('mermaid', text)}</div>\n`
      highlightLeft -= text.length
      const html = highlightLeft >= 0 ? highlight(text, language) : escapeHtml(text)
      return `<pre><code class="hljs">${html}</code></pre>\n`
    },
    link(this: any, { href, title, tokens }: Tokens.Link) {
      const text = this.parser.parseInline(tokens)
      if (!SAFE_URL.test(href.trim())) return text
      const titleAttr = title ? ` title="${escapeHtml(title)}"` : ''
      return `<a href="${escapeHtml(href)}"${titleAttr} target="_blank" rel="noopener noreferrer nofollow">${text}</a>`
    },
    image({ href, title, text }: Tokens.Image) {
      if (!SAFE_URL.test(href.trim())) return escapeHtml(text)
      const titleAttr = title ? ` title="${escapeHtml(title)}"` : ''
      return `<img src="${escapeHtml(href)}" alt="${escapeHtml(text)}"${titleAttr} loading="lazy">`
    },
  },
}).use(MATH)

let highlightLeft = 0

// marked's cost grows with the input and, for some shapes, with its square: emphasis delimiters
// without partners in one paragraph (`*a*a*a…`) and deeply nested quotes (BENCHMARKS.md,
// rendering). So the input is capped, and such paragraphs are shown as typed and
// quotes lose their depth before parsing.
export const MARKDOWN_INPUT_LIMIT = 128 * 1024
const MAX_DELIMITERS = 512
// Quotes and lists nested past this depth keep their markers as text.
const MAX_QUOTE_DEPTH = 8
// A container marker at the start of a line: a quote, or a list item's bullet or number.
const CONTAINER = String.raw`\s*(?:>|[-*+](?=\s)|\d{1,9}[.)](?=\s))`
const DEEP_QUOTE = new RegExp(`^((?:${CONTAINER}){${MAX_QUOTE_DEPTH}})((?:${CONTAINER})+)`)
const BLOCK_START = /^\s*(?:[-*+]\s|\d{1,9}[.)]\s|#{1,6}\s|\|)/

export function renderMarkdown(budget: HtmlBudget, source: string) {
  let text = source
  const capped = text.length > MARKDOWN_INPUT_LIMIT
  if (capped) {
    const end = text.lastIndexOf('\n', MARKDOWN_INPUT_LIMIT)
    text = text.slice(0, end > 0 ? end : MARKDOWN_INPUT_LIMIT)
  }
  const html = `<article class="markdown">${markdownHtml(text)}</article>`
  if (utf8Length(html) > budget.room) {
    budget.add('<p class="notice">Too large to show as Markdown; shown as text.</p>')
    return renderPlain(budget, source)
  }
  budget.add(html)
  notesDrawings(budget, html)
  if (capped) budget.cut = true
}

/**
 * Markdown as HTML (no more than MARKDOWN_INPUT_LIMIT of it: the caller cuts). Its code blocks
 * draw on `allowance` for highlighting, which a notebook's cells share.
 */
export function markdownHtml(text: string, allowance = { left: HIGHLIGHT_LIMIT }): string {
  highlightLeft = allowance.left
  const html = marked.parse(defuse(text), { async: false })
  allowance.left = Math.max(0, highlightLeft)
  return html
}

/**
 * The input with what makes marked quadratic taken out: a paragraph with more than MAX_DELIMITERS
 * emphasis characters is fenced as code (shown as typed, parsed in linear time), and quote and list
 * markers past MAX_QUOTE_DEPTH are escaped. Fenced code is left as it is.
 */
function defuse(text: string): string {
  const lines = text.split('\n')
  let fence: string | null = null
  let paragraph: number[] = []
  let delimiters = 0
  const flush = () => {
    if (delimiters > MAX_DELIMITERS) fenceLines(lines, paragraph)
    paragraph = []
    delimiters = 0
  }
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1]
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = null
      continue
    }
    if (marker) {
      flush()
      fence = marker
      continue
    }
    if (line.trim() === '') {
      flush()
      continue
    }
    // marked reads each list item, heading and table row on its own: each starts a new count.
    const row = line.includes('|')
    if (row || BLOCK_START.test(line)) flush()
    lines[i] = line.replace(DEEP_QUOTE, (_, kept: string, extra: string) => {
      const escaped = extra.replace(/>|[-*+](?=\s)|(\d{1,9})([.)])(?=\s)/g, (m, n, p) =>
        n ? `${n}\\${p}` : `\\${m}`,
      )
      return kept + escaped
    })
    paragraph.push(i)
    delimiters += countDelimiters(line)
    if (row) flush()
  }
  flush()
  return lines.join('\n')
}

/** Wraps lines in a code fence longer than any run of backticks they hold, at their indent. */
function fenceLines(lines: string[], indexes: number[]) {
  const first = indexes[0]
  const last = indexes[indexes.length - 1]
  let longest = 2
  let indent = Infinity
  for (const i of indexes) {
    for (const run of lines[i].match(/`+/g) ?? []) longest = Math.max(longest, run.length)
    indent = Math.min(indent, /^ */.exec(lines[i])![0].length)
  }
  const line = ' '.repeat(indent) + '`'.repeat(longest + 1)
  lines[first] = `${line}\n${lines[first]}`
  lines[last] = `${lines[last]}\n${line}`
}

function countDelimiters(line: string): number {
  let n = 0
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i)
    if (c === 42 || c === 95 || c === 126) n++ // * _ ~
  }
  return n
}
