// Where a comment's quote (a W3C TextQuoteSelector: the exact text, and some of the text before
// and after it) is in a document's text. This is the rule for comments carried to later versions:
// a quote is shown in place only where it points at one place. Its exact text found once is that
// place, whatever now surrounds it; found several times, its context may still single one out; a
// quote that is gone, or that its context cannot tell apart, is listed but not shown in place.
// Whitespace is compared as one space, since renderers differ in how they lay text out.
import type { CommentAnchor } from '../src/schema/requests'

/** A comment's quote, as the API takes it. */
export type TextQuote = Extract<CommentAnchor, { quote: unknown }>['quote']

export type Located =
  | { kind: 'found'; start: number; end: number }
  | { kind: 'missing' }
  | { kind: 'ambiguous'; count: number }

/** Past this many places the quote is ambiguous anyway: the search stops counting. */
const MAX_PLACES = 1000
/** Text taken as a quote's context on each side. */
export const CONTEXT = 32

/** Runs of whitespace as one space; `map[i]` is where the i-th character was in `text`. */
function collapse(text: string) {
  let out = ''
  const map: number[] = []
  let space = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]
    if (/\s/.test(ch)) {
      if (space) continue
      space = true
      out += ' '
    } else {
      space = false
      out += ch
    }
    map.push(i)
  }
  map.push(text.length)
  return { text: out, map }
}

const squeeze = (text: string) => text.replace(/\s+/g, ' ')

/** The place in `text` that `quote` points at, if it points at exactly one. */
export function locateQuote(text: string, quote: TextQuote): Located {
  const exact = squeeze(quote.exact).trim()
  if (exact === '') return { kind: 'missing' }
  const doc = collapse(text)
  const starts: number[] = []
  for (let at = doc.text.indexOf(exact); at !== -1; at = doc.text.indexOf(exact, at + 1)) {
    starts.push(at)
    if (starts.length > MAX_PLACES) break
  }
  if (starts.length === 0) return { kind: 'missing' }
  let chosen = starts
  if (starts.length > 1) {
    const prefix = squeeze(quote.prefix ?? '')
    const suffix = squeeze(quote.suffix ?? '')
    chosen = starts.filter(
      (at) =>
        (prefix === '' || endsAt(doc.text, at, prefix)) &&
        (suffix === '' || doc.text.startsWith(suffix.trimEnd(), at + exact.length)),
    )
  }
  if (chosen.length !== 1) return { kind: 'ambiguous', count: starts.length }
  const start = chosen[0]
  return { kind: 'found', start: doc.map[start], end: doc.map[start + exact.length - 1] + 1 }
}

/** Whether `text` just before `at` is `prefix` (its leading whitespace aside). */
function endsAt(text: string, at: number, prefix: string) {
  const wanted = prefix.trimStart()
  return text.slice(0, at).endsWith(wanted)
}

/** The quote of `text` from `start` to `end`: its exact text, trimmed, and context either side. */
export function quoteOf(text: string, start: number, end: number, max: number): TextQuote | null {
  while (start < end && /\s/.test(text[start])) start++
  while (end > start && /\s/.test(text[end - 1])) end--
  if (start === end) return null
  end = Math.min(end, start + max)
  return {
    exact: text.slice(start, end),
    prefix: text.slice(Math.max(0, start - CONTEXT), start),
    suffix: text.slice(end, end + CONTEXT),
  }
}
