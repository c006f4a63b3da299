import { Numbering, searchRuns, type RunKind, type Work } from './search'

// Which words changed between two changed lines (or two blocks of them), so that a reader sees the
// one word that changed rather than two whole lines. Words, runs of spaces, line breaks and each
// other character are the items of the search, drawn from the request's Work like the lines'; a
// pair that differs by more than a few words, or in most of its text, is shown whole instead,
// where marking it word by word would mark nearly everything.
//
// The text both share at their start and end is set aside first, by characters, so that a long
// line (a minified page on one line) with one word changed costs one pass over it; only what is
// left between is split into words, and only when it is short (MAX_WORD_CHARS), each word taken
// from the request's Work as a step: splitting and numbering cost no less than a comparison.

/** Words and spaces added or removed within one pair of lines, past which it is shown whole. */
export const MAX_LINE_EDITS = 64
/** The same for a block of changed lines in the rendered view. */
export const MAX_BLOCK_EDITS = 400
/** The most characters of a side, between what both share at their ends, split into words. */
export const MAX_WORD_CHARS = 16_384

// Letters, digits and marks together are a word; a line break stands alone, as it ends a line.
const TOKEN = /[\p{L}\p{M}\p{N}_]+|[^\S\n]+|\n|[^]/gu

/** A part of a text: kept (same), removed (del) or added (add). */
export type Piece = { kind: RunKind; text: string }

/**
 * The pieces that turn `before` into `after`, word by word, in the order a reader takes them (what
 * was removed before what was added, at each place); null when they differ too much to be worth
 * it, or when `work` has too little left.
 */
export function wordPieces(
  before: string,
  after: string,
  work: Work,
  maxEdit: number,
): Piece[] | null {
  const ends = sharedEnds(before, after)
  if (!ends) return null
  const [head, tail] = ends
  const midA = before.slice(head, before.length - tail)
  const midB = after.slice(head, after.length - tail)
  if (midA.length > MAX_WORD_CHARS || midB.length > MAX_WORD_CHARS) return null
  if (work.left < midA.length + midB.length) return null
  const a = midA.match(TOKEN) ?? []
  const b = midB.match(TOKEN) ?? []
  work.left -= a.length + b.length
  const numbers = new Numbering()
  const runs = searchRuns(
    a.map((t) => numbers.of(t)),
    b.map((t) => numbers.of(t)),
    work,
    maxEdit,
    true,
  )
  if (!runs) return null
  const pieces: Piece[] = [{ kind: 'same', text: before.slice(0, head) }]
  let kept = before.slice(0, head).trim().length + before.slice(before.length - tail).trim().length
  let i = 0
  let j = 0
  for (const run of runs) {
    if (run.kind === 'add') {
      pieces.push({ kind: 'add', text: b.slice(j, (j += run.count)).join('') })
      continue
    }
    const text = a.slice(i, (i += run.count)).join('')
    pieces.push({ kind: run.kind, text })
    if (run.kind === 'same') {
      j += run.count
      kept += text.trim().length
    }
  }
  pieces.push({ kind: 'same', text: before.slice(before.length - tail) })
  // Marked everywhere but a few letters, a pair reads better whole.
  if (kept * 3 < Math.max(before.trim().length, after.trim().length)) return null
  return joined(pieces.filter((piece) => piece.text !== ''))
}

// What is in one word with its neighbour: letters, digits and marks; or spaces but line breaks.
const WORD = /[\p{L}\p{M}\p{N}_]/u
const SPACE = /[^\S\n]/
const classOf = (ch: string) => (WORD.test(ch) ? 1 : SPACE.test(ch) ? 2 : 0)
const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff

/** The code point that ends at `at` (before it) or starts there (`at`), as a string. */
const pointBefore = (text: string, at: number) =>
  String.fromCodePoint(text.codePointAt(isHigh(text.charCodeAt(at - 2)) ? at - 2 : at - 1)!)
const pointAt = (text: string, at: number) => String.fromCodePoint(text.codePointAt(at)!)

/** Whether `at` splits a word, a run of spaces or a character of `text` in two. */
function splits(text: string, at: number) {
  if (at <= 0 || at >= text.length) return false
  if (isHigh(text.charCodeAt(at - 1))) return true
  const kind = classOf(pointBefore(text, at))
  return kind !== 0 && kind === classOf(pointAt(text, at))
}

/**
 * The lengths of the start and the end two texts share, each ending between two words in both (so
 * the words of what is left between are the words the whole texts have there), not overlapping;
 * null when a word so long that what is left would be over MAX_WORD_CHARS straddles either end.
 */
function sharedEnds(a: string, b: string): [number, number] | null {
  const most = Math.min(a.length, b.length)
  let head = 0
  while (head < most && a.charCodeAt(head) === b.charCodeAt(head)) head++
  const headEnd = head
  while (head > 0 && (splits(a, head) || splits(b, head))) {
    if (headEnd - --head > MAX_WORD_CHARS) return null
  }
  let tail = 0
  while (
    tail < most - head &&
    a.charCodeAt(a.length - 1 - tail) === b.charCodeAt(b.length - 1 - tail)
  ) {
    tail++
  }
  const tailEnd = tail
  while (tail > 0 && (splits(a, a.length - tail) || splits(b, b.length - tail))) {
    if (tailEnd - --tail > MAX_WORD_CHARS) return null
  }
  return [head, tail]
}

/**
 * Pieces with a change on both sides of nothing but spaces made one change (`a b` for `x y` is
 * one change, not two with a kept space between), then neighbours of one kind joined, removals
 * first at each place.
 */
function joined(pieces: Piece[]): Piece[] {
  const out: Piece[] = []
  let del = ''
  let add = ''
  const flush = () => {
    if (del) out.push({ kind: 'del', text: del })
    if (add) out.push({ kind: 'add', text: add })
    del = add = ''
  }
  for (let k = 0; k < pieces.length; k++) {
    const piece = pieces[k]
    if (piece.kind === 'del') del += piece.text
    else if (piece.kind === 'add') add += piece.text
    else {
      const between = (del || add) && k + 1 < pieces.length && /^[^\S\n]+$/.test(piece.text)
      if (between) {
        del += piece.text
        add += piece.text
        continue
      }
      flush()
      const last = out[out.length - 1]
      if (last?.kind === 'same') last.text += piece.text
      else out.push({ ...piece })
    }
  }
  flush()
  return out
}
