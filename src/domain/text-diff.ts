import { structuredPatch } from 'diff'

// What changed between two texts, line by line, as the hunks of a unified diff with three lines of
// context. Bounded by the work itself rather than a clock (a deployed Worker's clock stands still
// while it computes): the diff gives up beyond MAX_EDIT_LENGTH lines added or removed.

const CONTEXT_LINES = 3
const MAX_EDIT_LENGTH = 1_000

export type DiffLine = { kind: 'add' | 'del' | 'same'; text: string }
export type DiffHunk = { oldStart: number; newStart: number; lines: DiffLine[] }
export type TextDiff = { hunks: DiffHunk[]; added: number; removed: number }

/** The hunks between two texts, or null when they differ too much to show. */
export function diffTexts(before: string, after: string): TextDiff | null {
  const patch = structuredPatch('', '', before, after, '', '', {
    context: CONTEXT_LINES,
    maxEditLength: MAX_EDIT_LENGTH,
  })
  if (!patch) return null
  let added = 0
  let removed = 0
  const hunks = patch.hunks.map((hunk) => ({
    oldStart: hunk.oldStart,
    newStart: hunk.newStart,
    lines: hunk.lines.flatMap((line): DiffLine[] => {
      // "\ No newline at end of file" says something of the line before, not a line of its own.
      if (line.startsWith('\\')) return []
      const kind = line[0] === '+' ? 'add' : line[0] === '-' ? 'del' : 'same'
      if (kind === 'add') added++
      if (kind === 'del') removed++
      return [{ kind, text: line.slice(1) }]
    }),
  }))
  return { hunks, added, removed }
}
