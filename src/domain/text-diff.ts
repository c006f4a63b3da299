import { diffArrays } from 'diff'

// What changed between two texts, line by line, as the hunks of a unified diff with three lines of
// context. Its cost is bounded by the work the search does, never by a clock: a deployed Worker's
// clock stands still while it computes, so the library's `timeout` would never fire.
//
// The search is Myers' algorithm (the `diff` library), whose work grows with the lines it compares
// times the edits it finds, whatever they are. So, first, each line becomes a number (equal lines,
// equal numbers), which makes every comparison one step however long the lines; the lines the two
// texts share at their start and end are set aside, as matching them needs no search; and the
// search over what is left gives up after MAX_DIFF_STEPS comparisons or MAX_EDIT_LENGTH lines
// added or removed, whichever comes first. Then the texts differ too much to show line by line.

const CONTEXT_LINES = 3
export const MAX_EDIT_LENGTH = 1_000
export const MAX_DIFF_STEPS = 100_000

export type DiffLine = { kind: 'add' | 'del' | 'same'; text: string }
export type DiffHunk = { oldStart: number; newStart: number; lines: DiffLine[] }
export type TextDiff = { hunks: DiffHunk[]; added: number; removed: number }

type Run = { kind: DiffLine['kind']; count: number }

/** The hunks between two texts, or null when they differ too much to show. */
export function diffTexts(before: string, after: string): TextDiff | null {
  const oldLines = linesOf(before)
  const newLines = linesOf(after)
  const numbers = new Map<string, number>()
  const numberOf = (line: string) => {
    let n = numbers.get(line)
    if (n === undefined) numbers.set(line, (n = numbers.size))
    return n
  }
  const a = oldLines.map(numberOf)
  const b = newLines.map(numberOf)
  let head = 0
  while (head < a.length && head < b.length && a[head] === b[head]) head++
  let tail = 0
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) {
    tail++
  }
  const middle = search(a.slice(head, a.length - tail), b.slice(head, b.length - tail))
  if (!middle) return null
  const same = (count: number): Run => ({ kind: 'same', count })
  const runs = [same(head), ...middle, same(tail)].filter((run) => run.count > 0)
  return hunksOf(runs, oldLines, newLines)
}

/**
 * A text's lines, each with its newline (as the `diff` library's line diff takes them): a last
 * line without one differs from the same text with one, so a newline added at the end shows.
 */
function linesOf(text: string): string[] {
  return text === '' ? [] : text.split(/(?<=\n)/)
}

const OUT_OF_STEPS = Symbol('out of steps')

/** The runs of lines kept, removed and added, or null when the search gives up. */
function search(a: number[], b: number[]): Run[] | null {
  let steps = 0
  try {
    const changes = diffArrays(a, b, {
      maxEditLength: MAX_EDIT_LENGTH,
      comparator: (x, y) => {
        if (++steps > MAX_DIFF_STEPS) throw OUT_OF_STEPS
        return x === y
      },
    })
    if (!changes) return null
    return changes.map((c): Run => ({
      kind: c.added ? 'add' : c.removed ? 'del' : 'same',
      count: c.count,
    }))
  } catch (err) {
    if (err === OUT_OF_STEPS) return null
    throw err
  }
}

/**
 * The hunks of a unified diff: each change with up to CONTEXT_LINES unchanged lines around it,
 * and changes closer than twice that in one hunk.
 */
function hunksOf(runs: Run[], oldLines: string[], newLines: string[]): TextDiff {
  const hunks: DiffHunk[] = []
  let hunk: DiffHunk | null = null
  let oldAt = 0
  let newAt = 0
  let added = 0
  let removed = 0
  const push = (kind: DiffLine['kind'], line: string) =>
    hunk!.lines.push({ kind, text: line.endsWith('\n') ? line.slice(0, -1) : line })
  for (let i = 0; i < runs.length; i++) {
    const run = runs[i]
    if (run.kind === 'same') {
      if (hunk) {
        const joins = i < runs.length - 1 && run.count <= 2 * CONTEXT_LINES
        const shown = joins ? run.count : Math.min(run.count, CONTEXT_LINES)
        for (let k = 0; k < shown; k++) push('same', newLines[newAt + k])
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
      for (let k = lead; k > 0; k--) push('same', newLines[newAt - k])
    }
    if (run.kind === 'del') {
      for (let k = 0; k < run.count; k++) push('del', oldLines[oldAt + k])
      oldAt += run.count
      removed += run.count
    } else {
      for (let k = 0; k < run.count; k++) push('add', newLines[newAt + k])
      newAt += run.count
      added += run.count
    }
  }
  if (hunk) hunks.push(hunk)
  return { hunks, added, removed }
}
