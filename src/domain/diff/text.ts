import { MAX_DIFF_STEPS, MAX_EDIT_LENGTH, Numbering, searchRuns, Work, type Run } from './search'
import { MAX_LINE_EDITS, wordPieces, type Piece } from './words'

// What changed between two texts, line by line, as the hunks of a unified diff with three lines of
// context, each line with its numbers in the old and the new text; and, within a removed line and
// the added line that took its place, the words that changed. The search and its bound of work
// are in diff-search.ts: the lines' search first, then the words' with what is left.

export { MAX_DIFF_STEPS, MAX_EDIT_LENGTH }

const CONTEXT_LINES = 3

/** A part of a changed line: kept, or changed (removed from a removed line, added to an added). */
export type Segment = { text: string; changed: boolean }
export type DiffLine = {
  kind: 'add' | 'del' | 'same'
  text: string
  /** The line's number in the old text: kept and removed lines. */
  oldLine?: number
  /** The line's number in the new text: kept and added lines. */
  newLine?: number
  /** For a changed line paired with its counterpart: its text in parts, the changed ones marked. */
  parts?: Segment[]
}
export type DiffHunk = { oldStart: number; newStart: number; lines: DiffLine[] }
export type TextDiff = { hunks: DiffHunk[]; added: number; removed: number }

/** The lines of two texts and the runs between them, or null when they differ too much. */
export type LineRuns = { runs: Run[]; oldLines: string[]; newLines: string[] }

/** The hunks between two texts, or null when they differ too much to show. */
export function diffTexts(before: string, after: string, work = new Work()): TextDiff | null {
  const lines = lineRuns(before, after, work)
  return lines && hunksOf(lines, work)
}

/** The runs of lines kept, removed and added between two texts, or null past the bound. */
export function lineRuns(before: string, after: string, work: Work): LineRuns | null {
  const oldLines = linesOf(before)
  const newLines = linesOf(after)
  const numbers = new Numbering()
  const a = oldLines.map((line) => numbers.of(line))
  const b = newLines.map((line) => numbers.of(line))
  const runs = searchRuns(a, b, work, MAX_EDIT_LENGTH)
  return runs && { runs, oldLines, newLines }
}

/**
 * A text's lines, each with its newline (as the `diff` library's line diff takes them): a last
 * line without one differs from the same text with one, so a newline added at the end shows.
 */
function linesOf(text: string): string[] {
  return text === '' ? [] : text.split(/(?<=\n)/)
}

const withoutNewline = (line: string) => (line.endsWith('\n') ? line.slice(0, -1) : line)

/**
 * The hunks of a unified diff: each change with up to CONTEXT_LINES unchanged lines around it,
 * and changes closer than twice that in one hunk. The n-th line removed at a place is paired with
 * the n-th added there, and their changed words marked while `work` lasts.
 */
function hunksOf({ runs, oldLines, newLines }: LineRuns, work: Work): TextDiff {
  const hunks: DiffHunk[] = []
  let hunk: DiffHunk | null = null
  let oldAt = 0
  let newAt = 0
  let added = 0
  let removed = 0
  const same = (k: number) => ({
    kind: 'same' as const,
    text: withoutNewline(newLines[newAt + k]),
    oldLine: oldAt + k + 1,
    newLine: newAt + k + 1,
  })
  for (let i = 0; i < runs.length; i++) {
    const run = runs[i]
    if (run.kind === 'same') {
      if (hunk) {
        const joins = i < runs.length - 1 && run.count <= 2 * CONTEXT_LINES
        const shown = joins ? run.count : Math.min(run.count, CONTEXT_LINES)
        for (let k = 0; k < shown; k++) hunk.lines.push(same(k))
        if (!joins) {
          hunks.push(hunk)
          hunk = null
        }
      }
      oldAt += run.count
      newAt += run.count
      continue
    }
    if (!hunk) {
      const before = runs[i - 1]
      const lead = before?.kind === 'same' ? Math.min(before.count, CONTEXT_LINES) : 0
      hunk = { oldStart: oldAt - lead + 1, newStart: newAt - lead + 1, lines: [] }
      for (let k = -lead; k < 0; k++) hunk.lines.push(same(k))
    }
    // A removal followed by an addition: one place where lines were replaced.
    const dels = run.kind === 'del' ? run.count : 0
    const adds = run.kind === 'add' ? run.count : runs[i + 1]?.kind === 'add' ? runs[++i].count : 0
    const gone: DiffLine[] = []
    const come: DiffLine[] = []
    for (let k = 0; k < dels; k++) {
      const text = withoutNewline(oldLines[oldAt + k])
      gone.push({ kind: 'del', text, oldLine: oldAt + k + 1 })
    }
    for (let k = 0; k < adds; k++) {
      const text = withoutNewline(newLines[newAt + k])
      come.push({ kind: 'add', text, newLine: newAt + k + 1 })
    }
    for (let k = 0; k < Math.min(dels, adds); k++) markWords(gone[k], come[k], work)
    hunk.lines.push(...gone, ...come)
    oldAt += dels
    newAt += adds
    removed += dels
    added += adds
  }
  if (hunk) hunks.push(hunk)
  return { hunks, added, removed }
}

/** The changed words of a removed line and the added line in its place, when worth showing. */
function markWords(gone: DiffLine, come: DiffLine, work: Work) {
  const pieces = wordPieces(gone.text, come.text, work, MAX_LINE_EDITS)
  if (!pieces) return
  gone.parts = segments(pieces, 'del')
  come.parts = segments(pieces, 'add')
}

function segments(pieces: Piece[], side: 'del' | 'add'): Segment[] {
  return pieces
    .filter((piece) => piece.kind === 'same' || piece.kind === side)
    .map((piece) => ({ text: piece.text, changed: piece.kind !== 'same' }))
}
