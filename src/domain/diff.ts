import { AppError } from '../lib/errors'
import { readContent, type Read } from './publish'
import type { Actor, Services } from './services'
import { diffTexts, type DiffHunk } from './text-diff'

// What changed between two versions of a text canvas (the diff page), within the bounds of every
// rendering: each side at most MAX_READ_BYTES (readContent) and MAX_LINES lines, and the diff
// itself bounded by the work it does (text-diff.ts).

const MAX_LINES = 20_000

export type { DiffHunk, DiffLine, Segment } from './text-diff'

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
  const changes = diffTexts(textOf(before), textOf(after))
  if (!changes) {
    const reason = 'the two versions differ too much to show line by line'
    return { kind: 'not_comparable', from, to, reason }
  }
  return { kind: 'diff', from, to, ...changes }
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
