import { structuredPatch } from 'diff'
import { AppError } from '../lib/errors'
import { readContent, type Read } from './publish'
import type { Actor, Services } from './services'

// What changed between two versions of a text canvas, line by line, as the hunks of a unified
// diff. Bounded like every rendering, by the work itself rather than a clock (a deployed Worker's
// clock stands still while it computes): each side at most MAX_READ_BYTES (readContent) and
// MAX_LINES lines, and the diff gives up beyond MAX_EDIT_LENGTH lines added or removed. Its cost
// grows with lines and edits: two 20,000-line versions with nothing in common give up after about
// 0.15 s of CPU (measured in Node with Date.now stopped, as a deployed Worker's is).

const CONTEXT_LINES = 3
const MAX_LINES = 20_000
const MAX_EDIT_LENGTH = 1_000

export type DiffLine = { kind: 'add' | 'del' | 'same'; text: string }
export type DiffHunk = { oldStart: number; newStart: number; lines: DiffLine[] }

export type VersionDiff =
  | { kind: 'diff'; from: number; to: number; hunks: DiffHunk[]; added: number; removed: number }
  /** Which side cannot be compared, and why (not text, too large, or too different). */
  | { kind: 'not_comparable'; from: number; to: number; reason: string }

export async function diffVersions(
  svc: Services,
  actor: Actor,
  canvasId: string,
  from: number,
  to: number,
): Promise<VersionDiff> {
  const [before, after] = await Promise.all([
    readContent(svc, actor, canvasId, from),
    readContent(svc, actor, canvasId, to),
  ])
  const refusal = whyNot(before, from) ?? whyNot(after, to)
  if (refusal) return { kind: 'not_comparable', from, to, reason: refusal }
  const patch = structuredPatch(`v${from}`, `v${to}`, textOf(before), textOf(after), '', '', {
    context: CONTEXT_LINES,
    maxEditLength: MAX_EDIT_LENGTH,
  })
  if (!patch) {
    const reason = 'the two versions differ too much to show line by line'
    return { kind: 'not_comparable', from, to, reason }
  }
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
  return { kind: 'diff', from, to, hunks, added, removed }
}

function whyNot(read: Read, version: number) {
  if (read.kind === 'binary') return `version ${version} is not text`
  if (read.kind === 'too_large') return `version ${version} is too large to compare`
  if (read.kind === 'text' && lineCount(read.text) > MAX_LINES) {
    return `version ${version} has too many lines to compare`
  }
  return undefined
}

function lineCount(text: string) {
  let lines = 1
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++
  return lines
}

function textOf(read: Read) {
  if (read.kind !== 'text') throw new AppError('internal_error', 'not text')
  return read.text
}
