// An HTML document as the units the rendered view of a diff compares: its markup (a tag, a
// comment, a doctype) and the text between, each a unit; an element whose content is not text a
// reader sees (a script, a style sheet, a title) is one unit with its content. What the view shows
// is the new document with the text that changed marked, and a unit of markup is kept or left out
// whole, so no mark ever lands inside a tag or a script. One pass, each search starting where the
// last one ended, so its time is linear in the document whatever its shape.
//
// This is not a full HTML parser and need not be one: the view is served in a sandboxed frame that
// runs no script, like every rendering of a canvas, so a document this reads otherwise than a
// browser does is at worst marked in odd places.

/** Markup, text, or a script, as written. */
export type HtmlUnit = { kind: 'markup' | 'text' | 'script'; raw: string }

/** The most units a document is read into: past it, it is too large to compare rendered. */
export const MAX_HTML_UNITS = 100_000

// Elements whose content is no markup, up to their end tag: skipped as one unit.
const RAW_TEXT = new Set([
  'script',
  'style',
  'title',
  'textarea',
  'template',
  'xmp',
  'iframe',
  'noembed',
  'noframes',
])
const TAG = /<([a-zA-Z][a-zA-Z0-9-]*)/y
const ENDS = new Map([...RAW_TEXT].map((name) => [name, new RegExp(`</${name}[\\s/>]`, 'gi')]))

/**
 * The document's units, in order, all of it (their `raw` joined is the document); text split after
 * each line break, so that a line of the document ends with a unit. Null past `limit` units.
 */
export function htmlUnits(html: string, limit = MAX_HTML_UNITS): HtmlUnit[] | null {
  const units: HtmlUnit[] = []
  const complete = scan(html, (kind, from, to) => {
    units.push({ kind, raw: html.slice(from, to) })
    return units.length <= limit
  })
  return complete ? units : null
}

/**
 * The document's lines: cut after each line break that is in text (never within markup or a
 * script), so that each line is whole units, as htmlUnits reads them. Null past `limit` units.
 */
export function htmlLines(html: string, limit = MAX_HTML_UNITS): string[] | null {
  const lines: string[] = []
  let start = 0
  let units = 0
  const complete = scan(html, (kind, from, to) => {
    if (kind === 'text' && html.charCodeAt(to - 1) === 0x0a) {
      lines.push(html.slice(start, to))
      start = to
    }
    return ++units <= limit
  })
  if (!complete) return null
  if (start < html.length) lines.push(html.slice(start))
  return lines
}

/**
 * Calls `unit` with each unit's kind and place, text split after each line break, until it
 * answers false; whether it read to the end.
 */
function scan(
  html: string,
  unit: (kind: HtmlUnit['kind'], from: number, to: number) => boolean,
): boolean {
  const text = (from: number, to: number) => {
    for (let at = from; at < to;) {
      const nl = html.indexOf('\n', at)
      const end = nl === -1 || nl >= to ? to : nl + 1
      if (!unit('text', at, end)) return false
      at = end
    }
    return true
  }
  let from = 0
  let i = 0
  while (i < html.length) {
    const lt = html.indexOf('<', i)
    if (lt === -1) break
    const end = markupEnd(html, lt)
    if (end === -1) {
      // A `<` that starts no markup is text.
      i = lt + 1
      continue
    }
    if (!text(from, lt)) return false
    i = end
    let element = ''
    if (html.charCodeAt(lt + 1) !== 0x2f /* / */) {
      TAG.lastIndex = lt
      element = TAG.exec(html)?.[1].toLowerCase() ?? ''
    }
    if (RAW_TEXT.has(element)) {
      const close = ENDS.get(element)!
      close.lastIndex = end
      const found = close.exec(html)
      const gt = found ? html.indexOf('>', found.index) : -1
      i = gt === -1 ? html.length : gt + 1
    }
    if (!unit(element === 'script' ? 'script' : 'markup', lt, i)) return false
    from = i
  }
  return text(from, html.length)
}

/**
 * Where the markup that starts at `lt` ends (just after its `>`): a comment at its `-->`, a tag at
 * the first `>` outside its quoted attribute values; -1 when `lt` starts no markup. Markup never
 * closed runs to the end of the document, as in a browser.
 */
function markupEnd(html: string, lt: number): number {
  if (html.startsWith('<!--', lt)) {
    const end = html.indexOf('-->', lt + 4)
    return end === -1 ? html.length : end + 3
  }
  const next = html.charCodeAt(lt + 1)
  const letter = (next | 0x20) >= 0x61 && (next | 0x20) <= 0x7a
  if (!letter && next !== 0x2f /* / */ && next !== 0x21 /* ! */ && next !== 0x3f /* ? */) {
    return -1
  }
  let quote = 0
  for (let k = lt + 1; k < html.length; k++) {
    const c = html.charCodeAt(k)
    if (quote) {
      if (c === quote) quote = 0
    } else if (c === 0x22 || c === 0x27) {
      // A quote opens a value only after `=` (with spaces between).
      let p = k - 1
      while (p > lt && /\s/.test(html[p])) p--
      if (html[p] === '=') quote = c
    } else if (c === 0x3e /* > */) {
      return k + 1
    }
  }
  return html.length
}

// A character reference: named, decimal or hexadecimal.
const REF = /&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z][a-zA-Z0-9]{1,31});/g
// Supplementary Private Use Area-B: one character a reference stands for while compared.
const FIRST = 0x100000
const LAST = 0x10fffd
const STAND_INS = /[\u{100000}-\u{10FFFD}]/gu
// The first half of such a character in UTF-16: a cheap test that a text has none.
const HIGH_B = /[\uDBC0-\uDBFF]/

/**
 * Character references (`&amp;`, `&#233;`) as one character each while two texts are compared,
 * each reference its own character, so that a change is never marked inside one. A character of
 * that range already in the text is written as a reference first, which means the same in HTML.
 */
export class CharRefs {
  private readonly standIns = new Map<string, string>()
  private readonly refs: string[] = []

  encode(raw: string): string {
    if (!raw.includes('&') && !HIGH_B.test(raw)) return raw
    return raw
      .replace(STAND_INS, (ch) => `&#x${ch.codePointAt(0)!.toString(16)};`)
      .replace(REF, (ref) => {
        let ch = this.standIns.get(ref)
        if (ch === undefined) {
          // Past as many as there are characters to stand in, a reference stays as it is.
          if (FIRST + this.refs.length > LAST) return ref
          ch = String.fromCodePoint(FIRST + this.refs.length)
          this.refs.push(ref)
          this.standIns.set(ref, ch)
        }
        return ch
      })
  }

  /** The text with its references as they were written. */
  restore(text: string): string {
    return text.replace(STAND_INS, (ch) => this.refs[ch.codePointAt(0)! - FIRST])
  }
}
