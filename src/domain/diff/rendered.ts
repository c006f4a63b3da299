import type { HtmlChange } from '../../render/changes'
import {
  CharRefs,
  htmlLines,
  htmlUnits,
  MAX_HTML_UNITS,
  type HtmlUnit,
} from '../../render/html-units'
import { renderedAs, textOf, TOO_DIFFERENT, whyNot } from './diff'
import { MAX_EDIT_LENGTH, Numbering, searchRuns, Work, type Run } from './search'
import { contentUnderGrant, type FrameGrant } from '../frame-access'
import { readStoredText } from '../canvases/publish'
import type { Services } from '../services'
import { lineRuns } from './text'
import { MAX_BLOCK_EDITS, wordPieces, type Piece } from './words'

// The diff page's rendered view of a Markdown or an HTML canvas: the new version with what changed
// marked, what was added as added and what was removed put back in its place. A Markdown source is
// merged line by line, then word by word where lines changed; an HTML document unit by unit (its
// markup and the text between, render/html-units.ts), then word by word within each text that
// changed, so that marks fall in text only and the document keeps the new version's markup. Both
// are bounded like the page's diff, by one Work a request.

export type RenderedDiff =
  | { kind: 'markdown'; title: string; pieces: Piece[] }
  | { kind: 'html'; title: string; pieces: HtmlChange[] }
  | { kind: 'not_comparable'; title: string; reason: string }

/** The rendered view's changes, under the access a frame was issued with. */
export async function renderedDiff(
  svc: Services,
  grant: FrameGrant,
  canvasId: string,
  from: number,
  to: number,
): Promise<RenderedDiff> {
  const [before, after] = await Promise.all([
    contentUnderGrant(svc, grant, canvasId, from),
    contentUnderGrant(svc, grant, canvasId, to),
  ])
  const title = after.title
  const renderer = renderedAs(before.renderer_id, after.renderer_id)
  if (!renderer) {
    const reason = 'only Markdown and HTML versions of the same kind are shown rendered'
    return { kind: 'not_comparable', title, reason }
  }
  const [a, b] = await Promise.all([
    readStoredText(svc, before.blob_key),
    readStoredText(svc, after.blob_key),
  ])
  const refusal = whyNot(a, from) ?? whyNot(b, to)
  if (refusal) return { kind: 'not_comparable', title, reason: refusal }
  if (renderer === 'markdown') {
    const pieces = mergedPieces(textOf(a), textOf(b))
    if (!pieces) return { kind: 'not_comparable', title, reason: TOO_DIFFERENT }
    return { kind: 'markdown', title, pieces }
  }
  const pieces = mergedHtml(textOf(a), textOf(b))
  if (!pieces) return { kind: 'not_comparable', title, reason: TOO_DIFFERENT_HTML }
  return { kind: 'html', title, pieces }
}

const TOO_DIFFERENT_HTML = 'the two versions differ too much, or are too large, to show rendered'

/**
 * The new text with the old text's removed lines in their places: kept lines as they are, and
 * each place where lines changed word by word while the work lasts, whole lines after that.
 */
export function mergedPieces(before: string, after: string, work = new Work()): Piece[] | null {
  const lines = lineRuns(before, after, work)
  if (!lines) return null
  const { runs, oldLines, newLines } = lines
  const pieces: Piece[] = []
  for (const place of placesOf(runs)) {
    const gone = oldLines.slice(place.oldAt, place.oldAt + place.dels).join('')
    const come = newLines.slice(place.newAt, place.newAt + place.adds).join('')
    if (place.same) {
      pieces.push({ kind: 'same', text: come })
      continue
    }
    const words = gone && come ? wordPieces(gone, come, work, MAX_BLOCK_EDITS) : null
    pieces.push(...(words ?? [piece('del', gone), piece('add', come)]))
  }
  return joined(pieces)
}

const piece = (kind: Piece['kind'], text: string): Piece => ({ kind, text })

/**
 * The new document with the old one's removed text in its places: its markup as the new version
 * has it (removed markup left out, and scripts, which the view never runs) and kept text as it
 * is. Lines are compared first, as on the diff page; then the units of each place where lines
 * changed; then, where units changed, the n-th removed text with the n-th added one word by word,
 * all while the work lasts. Null past the bounds: too many units, or too many lines changed.
 */
export function mergedHtml(before: string, after: string, work = new Work()): HtmlChange[] | null {
  const oldLines = htmlLines(before)
  const newLines = oldLines && htmlLines(after)
  if (!oldLines || !newLines) return null
  const numbers = new Numbering()
  const runs = searchRuns(
    oldLines.map((line) => numbers.of(line)),
    newLines.map((line) => numbers.of(line)),
    work,
    MAX_EDIT_LENGTH,
  )
  if (!runs) return null
  const merge = new HtmlMerge(work)
  for (const place of placesOf(runs)) {
    const come = newLines.slice(place.newAt, place.newAt + place.adds).join('')
    if (place.same) merge.markup(come)
    else if (!merge.units(oldLines.slice(place.oldAt, place.oldAt + place.dels).join(''), come)) {
      return null
    }
  }
  return joined(merge.out)
}

class HtmlMerge {
  readonly out: HtmlChange[] = []
  private readonly refs = new CharRefs()
  private readonly numbers = new Numbering()
  /** Units the places where lines changed may still be read into. */
  private unitsLeft = MAX_HTML_UNITS

  constructor(private readonly work: Work) {}

  /** Kept lines: as written, but for their scripts. */
  markup(html: string) {
    if (!/<script/i.test(html)) this.out.push({ kind: 'kept', text: html })
    else htmlUnits(html, Infinity)!.forEach((unit) => this.kept(unit))
  }

  private kept(unit: HtmlUnit) {
    if (unit.kind === 'script') return
    this.out.push({ kind: 'kept', text: unit.raw })
  }

  /**
   * A place where lines changed: their units compared, or all replaced past the work; false when
   * they are more units than are left to read.
   */
  units(before: string, after: string): boolean {
    const gone = htmlUnits(before, this.unitsLeft)
    const come = gone && htmlUnits(after, this.unitsLeft - gone.length)
    if (!gone || !come) return false
    this.unitsLeft -= gone.length + come.length
    const key = (unit: HtmlUnit) => this.numbers.of(unit.kind[0] + unit.raw)
    const runs = searchRuns(gone.map(key), come.map(key), this.work, MAX_BLOCK_EDITS, true) ?? [
      { kind: 'del' as const, count: gone.length },
      { kind: 'add' as const, count: come.length },
    ]
    for (const place of placesOf(runs)) {
      const added = come.slice(place.newAt, place.newAt + place.adds)
      if (place.same) added.forEach((unit) => this.kept(unit))
      else this.texts(gone.slice(place.oldAt, place.oldAt + place.dels), added)
    }
    return true
  }

  /**
   * A place where units changed: removed markup left out, added markup kept, and the n-th removed
   * text with the n-th added one (text that is only spaces aside), word by word when worth it;
   * removed text beyond the pairs goes after the last pair, or first when there is none.
   */
  private texts(gone: HtmlUnit[], come: HtmlUnit[]) {
    const shown = (unit: HtmlUnit) => unit.kind === 'text' && unit.raw.trim() !== ''
    const removed = gone.filter(shown)
    const paired = Math.min(removed.length, come.filter(shown).length)
    const remove = (unit: HtmlUnit) => this.out.push({ kind: 'del', text: unit.raw })
    if (paired === 0) removed.forEach(remove)
    let k = 0
    for (const unit of come) {
      if (!shown(unit)) this.kept(unit)
      else if (k >= paired) this.out.push({ kind: 'add', text: unit.raw })
      else {
        const old = removed[k]
        const refs = this.refs
        const words = wordPieces(
          refs.encode(old.raw),
          refs.encode(unit.raw),
          this.work,
          MAX_BLOCK_EDITS,
        )
        if (words) {
          for (const p of words) {
            const kind = p.kind === 'same' ? 'kept' : p.kind
            this.out.push({ kind, text: refs.restore(p.text) })
          }
        } else this.out.push({ kind: 'del', text: old.raw }, { kind: 'add', text: unit.raw })
        if (++k === paired) removed.slice(paired).forEach(remove)
      }
    }
  }
}

/**
 * The places of a diff's runs: lines (or units) kept, or a place where some were replaced (a
 * removal, an addition, or the one followed by the other), with where each starts on its side.
 */
function* placesOf(runs: Run[]) {
  let oldAt = 0
  let newAt = 0
  for (let i = 0; i < runs.length; i++) {
    const run = runs[i]
    const same = run.kind === 'same'
    const dels = run.kind === 'add' ? 0 : run.count
    const adds =
      run.kind === 'del' ? (runs[i + 1]?.kind === 'add' ? runs[++i].count : 0) : run.count
    yield { same, oldAt, dels, newAt, adds }
    oldAt += dels
    newAt += adds
  }
}

/** Neighbours of one kind as one piece, and no empty piece. */
function joined<T extends { kind: string; text: string }>(pieces: T[]): T[] {
  const out: T[] = []
  for (const piece of pieces) {
    const last = out[out.length - 1]
    if (last?.kind === piece.kind) last.text += piece.text
    else if (piece.text) out.push({ ...piece })
  }
  return out
}
