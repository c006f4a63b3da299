import { structuredPatch } from 'diff'
import { AppError } from '../lib/errors'
import { readContent, type Read } from './publish'
import type { Actor, Services } from './services'

// What changed between two versions of a text canvas, line by line, as the hunks of a unified
// diff. Bounded like every rendering: each side at most MAX_READ_BYTES (readContent), and the
// diff itself gives up after DIFF_TIMEOUT_MS or MAX_EDIT_LENGTH edits rather than run on.

const CONTEXT_LINES = 3
const DIFF_TIMEOUT_MS = 1000
const MAX_EDIT_LENGTH = 20_000

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
    timeout: DIFF_TIMEOUT_MS,
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
  return undefined
}

function textOf(read: Read) {
  if (read.kind !== 'text') throw new AppError('internal_error', 'not text')
  return read.text
}
