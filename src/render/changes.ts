import { HtmlBudget } from './budget'

// The rendered view of a diff: the new version rendered with what was added marked <ins> and what
// was removed put back in its place, marked <del>. It is shown in a content frame like any other
// rendering, sandboxed, and runs no script: a Markdown canvas goes through the Markdown renderer;
// an HTML canvas is its new document with marks around changed text and its scripts left out,
// served with a policy that runs none.
//
// Marks cannot be written into Markdown as HTML (the renderer shows raw HTML as text), so the
// source carries them as four private-use characters, which the renderer passes through as text;
// afterwards each becomes a tag, in text only, closed before every tag and opened again after it,
// so a mark never straddles an element. The same characters in a canvas are replaced first.

/** A part of the merged text: kept, added, or removed. */
export type ChangePiece = { kind: 'same' | 'add' | 'del'; text: string }
type Part = ChangePiece
/** A part of a merged HTML document, as written: kept (markup or text), or text added or removed. */
export type HtmlChange = { kind: 'kept' | 'add' | 'del'; text: string }

const OPEN = { add: '\uE000', del: '\uE002' } as const
const CLOSE = { add: '\uE001', del: '\uE003' } as const
const MARKERS = /[\uE000-\uE003]/g
const TAG_OF: Record<string, string> = {
  '\uE000': 'ins',
  '\uE001': '/ins',
  '\uE002': 'del',
  '\uE003': '/del',
}

// Lines that give the lines after them their meaning: a code fence, a table's delimiter row, a
// rule or a heading's underline. Shown as the new version has them, never marked; a removed one
// is left out, as putting it back would change what the rest of the document is.
const FENCE = /^ {0,3}(?:`{3,}|~{3,})/
const RULE = /^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,}|=+[ \t]*)$/
const DELIMITER_ROW = /^[ \t]*\|?(?:[ \t]*:?-+:?[ \t]*\|)+(?:[ \t]*:?-+:?[ \t]*)?$/
const isStructure = (line: string) =>
  FENCE.test(line) || RULE.test(line) || DELIMITER_ROW.test(line)
// What makes a line a block: indent, quote, list item, task box, heading, table row. A mark starts
// after it, so that a changed list item is still a list item.
const PREFIX =
  /^(?:[ \t]*(?:>|[-*+](?=[ \t])|\d{1,9}[.)](?=[ \t])|#{1,6}(?=[ \t]|$)|\[[ xX]\](?=[ \t])|\|))*[ \t]*/
const TRAILING_PIPE = /[ \t]*\|[ \t]*$/

/**
 * The marks, light and dark, that read without colour too (underlined, struck through). In a
 * canvas's own document they must win over its style sheets, and cannot use the frame's colours.
 */
const MARKS =
  ':root{--ins:#aceebb;--del:#ffcecb}@media (prefers-color-scheme:dark){:root{--ins:#2ea04366;--del:#f8514966}}' +
  'ins{background:var(--ins)!important;text-decoration:underline!important}' +
  'del{background:var(--del)!important;text-decoration:line-through!important}' +
  'ins img{outline:3px solid var(--ins)}del img{outline:3px solid var(--del);opacity:.6}'

/** Added to the frame's style for a Markdown canvas's rendered changes. */
export const CHANGES_CSS = MARKS

/** The rendered view's body for a Markdown canvas, at most a frame's HTML. */
export async function renderMarkdownChanges(pieces: ChangePiece[]): Promise<string> {
  const source = linesOf(pieces)
    .map(markedLine)
    .filter((line) => line !== null)
    .join('\n')
  const budget = new HtmlBudget()
  const { renderMarkdown } = await import('./markdown')
  renderMarkdown(budget, source)
  const html = marksToTags(budget.toString())
  if (!budget.cut) return html
  return `<p class="notice">Too large to show in full; this is the beginning.</p>${html}`
}

/**
 * The rendered view of an HTML canvas: its merged document, the marks' style first (after its
 * doctype, which must come first), at most a frame's HTML; past that, what fits and a note.
 */
export function renderHtmlChanges(pieces: HtmlChange[]): string {
  const budget = new HtmlBudget()
  const style = `<style>${MARKS}</style>`
  // The doctype, after nothing but spaces, first: anything before it would put the page in quirks.
  const doctype = pieces[0]?.kind === 'kept' ? /^\s*<!doctype[^>]*>/i.exec(pieces[0].text) : null
  let at = 0
  if (doctype) {
    budget.add(doctype[0] + style + pieces[0].text.slice(doctype[0].length))
    at = 1
  } else {
    budget.add(style)
  }
  for (; at < pieces.length; at++) {
    const { kind, text } = pieces[at]
    const html =
      kind === 'add' ? `<ins>${text}</ins>` : kind === 'del' ? `<del>${text}</del>` : text
    if (!budget.add(html)) break
  }
  if (budget.cut) {
    budget.close(
      '<p style="font:15px system-ui,sans-serif">Too large to show in full; this is the beginning.</p>',
    )
  }
  return budget.toString()
}

/** The pieces as lines, each a list of parts without a newline; the markers made harmless. */
function linesOf(pieces: ChangePiece[]): Part[][] {
  const lines: Part[][] = [[]]
  for (const piece of pieces) {
    const text = piece.text.replace(MARKERS, '\uFFFD')
    text.split('\n').forEach((part, k) => {
      if (k > 0) lines.push([])
      if (part) lines[lines.length - 1].push({ kind: piece.kind, text: part })
    })
  }
  if (lines.length > 1 && lines[lines.length - 1].length === 0) lines.pop()
  return lines
}

/** One line of the merged Markdown source with its marks; null for a line left out. */
function markedLine(parts: Part[]): string | null {
  const side = (kind: Part['kind']) =>
    parts
      .filter((p) => p.kind !== kind)
      .map((p) => p.text)
      .join('')
  if (parts.every((p) => p.kind === 'same')) return side('del')
  const removed = parts.every((p) => p.kind === 'del')
  const text = removed ? side('add') : side('del')
  if (isStructure(text)) return removed ? null : text
  const prefix = PREFIX.exec(text)![0]
  // A whole line added or removed: one mark, inside the row's pipes when it is a table row.
  if (removed || parts.every((p) => p.kind === 'add')) {
    const kind = parts[0].kind as 'add' | 'del'
    const core = text.slice(prefix.length)
    const suffix = prefix.includes('|') ? (TRAILING_PIPE.exec(core)?.[0] ?? '') : ''
    const inner = core.slice(0, core.length - suffix.length)
    return prefix + (inner ? OPEN[kind] + inner + CLOSE[kind] : '') + suffix
  }
  // A changed line: its prefix as the new version has it, then each part, marked if changed.
  let out = prefix
  let skip = prefix.length
  for (const part of parts) {
    let piece = part.text
    if (skip > 0) {
      // The prefix is the new side's: removed parts within it are left out.
      if (part.kind === 'del') continue
      const taken = Math.min(skip, piece.length)
      skip -= taken
      piece = piece.slice(taken)
      if (!piece) continue
    }
    out += part.kind === 'same' ? piece : OPEN[part.kind] + piece + CLOSE[part.kind]
  }
  return out
}

/**
 * Rendered HTML with its markers made tags: in text only, a mark closed before each tag and
 * opened again after it (an image inside a mark is wrapped in it whole), and markers in a tag
 * (a link's address) dropped.
 */
export function marksToTags(html: string): string {
  let out = ''
  let open: 'ins' | 'del' | null = null
  let written = false
  const text = (run: string) => {
    let at = 0
    for (const m of run.matchAll(MARKERS)) {
      const before = run.slice(at, m.index)
      if (before && open && !written) {
        out += `<${open}>`
        written = true
      }
      out += before
      at = m.index + 1
      if (written) out += `</${open}>`
      written = false
      const tag = TAG_OF[m[0]]
      open = tag.startsWith('/') ? null : (tag as 'ins' | 'del')
    }
    const rest = run.slice(at)
    if (rest && open && !written) {
      out += `<${open}>`
      written = true
    }
    out += rest
  }
  let i = 0
  while (i < html.length) {
    const lt = html.indexOf('<', i)
    if (lt === -1) {
      text(html.slice(i))
      break
    }
    text(html.slice(i, lt))
    const gt = html.indexOf('>', lt)
    const end = gt === -1 ? html.length : gt + 1
    if (written) out += `</${open}>`
    written = false
    const tag = html.slice(lt, end).replace(MARKERS, '')
    out += open && /^<img\b/i.test(tag) ? `<${open}>${tag}</${open}>` : tag
    i = end
  }
  if (written) out += `</${open}>`
  return out
}
