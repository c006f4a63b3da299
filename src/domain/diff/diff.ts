import { AppError } from '../../lib/errors'
import { notebookSource } from '../../render/notebook-source'
import { readContent, type StoredText } from '../canvases/publish'
import type { Services } from '../services'
import type { Actor } from '../actor'
import { diffTexts, type DiffHunk } from './text'

// What changed between two versions of a text canvas (the diff page), within the bounds of every
// rendering: each side at most MAX_READ_BYTES (readContent) and MAX_LINES lines, and the diff
// itself bounded by the work it does (diff-search.ts). Markdown and HTML canvases also have a
// rendered view of their changes (rendered-diff.ts).

const MAX_LINES = 20_000

export type { DiffHunk, DiffLine, Segment } from './text'

/** The renderers whose versions also have a rendered view of their changes. */
export type RenderedAs = 'markdown' | 'html'

export type VersionDiff =
  | {
      kind: 'diff'
      from: number
      to: number
      hunks: DiffHunk[]
      added: number
      removed: number
      /** The renderer both versions share, when their changes can also be shown rendered. */
      rendered: RenderedAs | null
    }
  /** Which side cannot be compared, and why (not text, too large, or too different). */
  | { kind: 'not_comparable'; from: number; to: number; reason: string }

export const TOO_DIFFERENT = 'the two versions differ too much to show line by line'

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
  const notebooks =
    before.content.rendererId === 'notebook' && after.content.rendererId === 'notebook'
  // Notebooks compare by their cells' source, not by the JSON around them and their outputs.
  const sourceOf = (read: StoredText) => (notebooks ? notebookSource(textOf(read)) : textOf(read))
  const changes = diffTexts(sourceOf(before), sourceOf(after))
  if (!changes) return { kind: 'not_comparable', from, to, reason: TOO_DIFFERENT }
  const rendered = renderedAs(before.content.rendererId, after.content.rendererId)
  return { kind: 'diff', from, to, ...changes, rendered }
}

/** The renderer two versions share, when it has a rendered view of changes. */
export function renderedAs(
  before: string | undefined,
  after: string | undefined,
): RenderedAs | null {
  return before === after && (after === 'markdown' || after === 'html') ? after : null
}

/** Why one side cannot be compared, if it cannot. */
export function whyNot(read: StoredText, version: number) {
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

/** A side's text, once whyNot has found nothing against it. */
export function textOf(read: StoredText) {
  if (read.kind !== 'text') throw new AppError('internal_error', 'not text')
  return read.text
}
