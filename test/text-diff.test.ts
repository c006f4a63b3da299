import { Diff, structuredPatch } from 'diff'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { mergedHtml, mergedPieces } from '../src/domain/diff/rendered'
import { renderHtmlChanges } from '../src/render/changes'
import { htmlLines, htmlUnits } from '../src/render/html-units'
import { Work } from '../src/domain/diff/search'
import { diffTexts, MAX_DIFF_STEPS, MAX_EDIT_LENGTH, type TextDiff } from '../src/domain/diff/text'
import { MAX_LINE_EDITS, MAX_WORD_CHARS, wordPieces } from '../src/domain/diff/words'
import { DIFF_WORST_CASES } from './support/worst-cases'
import { runs } from './support/runs'

// The diff page's diff: bounded by the work of its searches (lines, then the words of changed
// lines), whatever the two texts, and when it answers, its hunks are a shortest edit from one text
// to the other, every line numbered on its sides and the words of a changed line marked. The
// rendered view's merged text likewise. (Their CPU time is measured by `npm run bench:render`, not
// asserted here.)

/**
 * The work the `diff` library does while `run` runs: the comparisons of two lines, and the moves
 * of its search from one diagonal of the edit graph to the next (each followed by a comparison,
 * unless it reaches an edge of the graph).
 */
function workOf<T>(run: () => T) {
  const proto = Diff.prototype as unknown as Record<'equals' | 'addToPath', Function>
  const { equals, addToPath } = proto
  const work = { comparisons: 0, moves: 0 }
  proto.equals = function (this: unknown, ...args: unknown[]) {
    work.comparisons++
    return equals.apply(this, args)
  }
  proto.addToPath = function (this: unknown, ...args: unknown[]) {
    work.moves++
    return addToPath.apply(this, args)
  }
  try {
    return { result: run(), ...work }
  } finally {
    Object.assign(proto, { equals, addToPath })
  }
}

/** `before` with the hunks applied, checking that each kept or removed line is `before`'s. */
function apply(before: string, diff: TextDiff) {
  const old = lines(before)
  const out: string[] = []
  let at = 0
  for (const hunk of diff.hunks) {
    out.push(...old.slice(at, hunk.oldStart - 1))
    at = hunk.oldStart - 1
    for (const line of hunk.lines) {
      if (line.kind === 'add') out.push(line.text)
      else {
        expect(line.text).toBe(old[at++])
        if (line.kind === 'same') out.push(line.text)
      }
    }
  }
  return [...out, ...old.slice(at)]
}

const lines = (text: string) => (text === '' ? [] : text.replace(/\n$/, '').split('\n'))

describe('the diff of two texts', () => {
  it('does bounded work on every worst case, and says when it gives up', () => {
    for (const c of DIFF_WORST_CASES) {
      const [before, after] = c.make()
      const views: [string, () => unknown][] = [
        ['lines', () => diffTexts(before, after)],
        ['rendered', () => mergedPieces(before, after)],
        ['rendered as HTML', () => mergedHtml(before, after)],
      ]
      for (const [view, diff] of views) {
        const work = workOf(diff)
        const name = `${c.name}, ${view}`
        // Every search of the request together, lines' and words': at most MAX_DIFF_STEPS
        // comparisons (and the one that finds the work spent), and its moves off the edge of the
        // edit graph, which compare nothing, within what each search set aside for them.
        expect(work.comparisons, name).toBeLessThanOrEqual(MAX_DIFF_STEPS + 1)
        expect(work.moves, name).toBeLessThanOrEqual(MAX_DIFF_STEPS + 2 * MAX_EDIT_LENGTH + 2)
        if (c.name.includes('(shown)')) expect(work.result, name).not.toBeNull()
      }
    }
    // 20,000 lines each changed near its end: too different to show, found out within the bound.
    const [before, after] = DIFF_WORST_CASES[0].make()
    expect(diffTexts(before, after)).toBeNull()
    expect(mergedPieces(before, after)).toBeNull()
  })

  it('answers hunks that turn one text into the other, with as few changes as the library', () => {
    const text = fc
      .array(fc.constantFrom('a', 'b', 'c', 'd', '', 'a '), { maxLength: 40 })
      .chain((ls) => fc.constantFrom(ls.join('\n'), ls.join('\n') + '\n'))
    fc.assert(
      fc.property(text, text, (before, after) => {
        const diff = diffTexts(before, after)
        if (!diff) throw new Error('a diff of 40 lines gave up')
        expect(apply(before, diff)).toEqual(lines(after))
        const patch = structuredPatch('', '', before, after, '', '', { context: 3 })
        const count = (sign: string) =>
          patch.hunks.flatMap((h) => h.lines).filter((l) => l[0] === sign).length
        expect([diff.added, diff.removed]).toEqual([count('+'), count('-')])
        // Each line shown with its numbers: its own line in the old text, the new, or both.
        for (const line of diff.hunks.flatMap((h) => h.lines)) {
          if (line.kind !== 'add') expect(lines(before)[line.oldLine! - 1]).toBe(line.text)
          if (line.kind !== 'del') expect(lines(after)[line.newLine! - 1]).toBe(line.text)
          expect(line.oldLine === undefined).toBe(line.kind === 'add')
          expect(line.newLine === undefined).toBe(line.kind === 'del')
          if (line.parts) expect(line.parts.map((p) => p.text).join('')).toBe(line.text)
        }
        // Three lines of context around each change, and hunks apart only with more between.
        diff.hunks.forEach((hunk, i) => {
          const edge = (ls: typeof hunk.lines) => ls.findIndex((l) => l.kind !== 'same')
          expect(edge(hunk.lines)).toBeLessThanOrEqual(3)
          expect(edge([...hunk.lines].reverse())).toBeLessThanOrEqual(3)
          const next = diff.hunks[i + 1]
          const oldEnd = hunk.oldStart + hunk.lines.filter((l) => l.kind !== 'add').length
          if (next) expect(next.oldStart).toBeGreaterThan(oldEnd)
        })
      }),
      { numRuns: runs(500) },
    )
  })

  it('shows one changed line among thousands with its context, as a unified diff does', () => {
    const before = Array.from({ length: 5000 }, (_, i) => `line ${i}`).join('\n')
    const after = before.replace('line 2500\n', 'line 2500 changed\n')
    const same = (n: number) => ({
      kind: 'same',
      text: `line ${n}`,
      oldLine: n + 1,
      newLine: n + 1,
    })
    expect(diffTexts(before, after)).toEqual({
      added: 1,
      removed: 1,
      hunks: [
        {
          oldStart: 2498,
          newStart: 2498,
          lines: [
            same(2497),
            same(2498),
            same(2499),
            {
              kind: 'del',
              text: 'line 2500',
              oldLine: 2501,
              parts: [{ text: 'line 2500', changed: false }],
            },
            {
              kind: 'add',
              text: 'line 2500 changed',
              newLine: 2501,
              parts: [
                { text: 'line 2500', changed: false },
                { text: ' changed', changed: true },
              ],
            },
            same(2501),
            same(2502),
            same(2503),
          ],
        },
      ],
    })
    // A newline added at the end changes the last line, as in a unified diff.
    expect(diffTexts('a\nb', 'a\nb\n')).toEqual({
      added: 1,
      removed: 1,
      hunks: [
        {
          oldStart: 1,
          newStart: 1,
          lines: [
            { kind: 'same', text: 'a', oldLine: 1, newLine: 1 },
            { kind: 'del', text: 'b', oldLine: 2, parts: [{ text: 'b', changed: false }] },
            { kind: 'add', text: 'b', newLine: 2, parts: [{ text: 'b', changed: false }] },
          ],
        },
      ],
    })
  })

  it('marks only the words that changed in a changed line, and a line too different whole', () => {
    const [gone, come] = diffTexts(
      '<p>The quick brown fox jumps.</p>',
      '<p>The quick red fox jumps.</p>',
    )!.hunks[0].lines
    expect(gone.parts).toEqual([
      { text: '<p>The quick ', changed: false },
      { text: 'brown', changed: true },
      { text: ' fox jumps.</p>', changed: false },
    ])
    expect(come.parts).toEqual([
      { text: '<p>The quick ', changed: false },
      { text: 'red', changed: true },
      { text: ' fox jumps.</p>', changed: false },
    ])
    // Two words apart, with a kept space between them: one change.
    const [, two] = diffTexts('one two three four', 'one 2 3 four')!.hunks[0].lines
    expect(two.parts).toEqual([
      { text: 'one ', changed: false },
      { text: '2 3', changed: true },
      { text: ' four', changed: false },
    ])
    // Nothing but a space in common: shown whole, as marking it all says nothing more.
    const whole = diffTexts('alpha beta', 'gamma delta')!.hunks[0].lines
    expect(whole.map((line) => line.parts)).toEqual([undefined, undefined])
    // The n-th removed line with the n-th added one; an added line beyond them is shown whole.
    const three = diffTexts('a\nkeep one\nkeep two\nz\n', 'a\nkept one\nkept two\nmore\nz\n')!
    const marked = three.hunks[0].lines.map((line) => [line.kind, line.parts?.length ?? 0])
    expect(marked).toEqual([
      ['same', 0],
      ['del', 2],
      ['del', 2],
      ['add', 2],
      ['add', 2],
      ['add', 0],
      ['same', 0],
    ])
  })
})

describe('the changed words of two lines', () => {
  const sides = (pieces: { kind: string; text: string }[]) =>
    (['add', 'del'] as const).map((gone) =>
      pieces
        .filter((p) => p.kind !== gone)
        .map((p) => p.text)
        .join(''),
    )

  it('marks one word changed in a one-line HTML file of 1 MiB, reading it once', () => {
    const page = (word: string) =>
      `<!doctype html><html><body>${'<p class="x">Some text, here.</p>'.repeat(15_000)}` +
      `<p>The quick ${word} fox.</p>${'<div><span>More</span></div>'.repeat(15_000)}</body></html>`
    const work = new Work()
    const [gone, come] = diffTexts(page('brown'), page('red'), work)!.hunks[0].lines
    expect(gone.parts!.filter((p) => p.changed)).toEqual([{ text: 'brown', changed: true }])
    expect(come.parts!.filter((p) => p.changed)).toEqual([{ text: 'red', changed: true }])
    expect(come.parts!.map((p) => p.text).join('')).toBe(page('red'))
    // Only the words between what the two lines share were split and searched.
    expect(MAX_DIFF_STEPS - work.left).toBeLessThan(20)
  })

  it('leaves a pair whole when what differs between its shared ends is long, or work is short', () => {
    // Two words changed, far apart: few edits, but over MAX_WORD_CHARS between them.
    const long = (a: string, b: string) => `${a} ${'filler '.repeat(MAX_WORD_CHARS / 7)}${b}`
    expect(wordPieces(long('one', 'two'), long('1', '2'), new Work(), MAX_LINE_EDITS)).toBeNull()
    const near = (a: string, b: string) => `${a} ${'filler '.repeat(100)}${b}`
    expect(
      wordPieces(near('one', 'two'), near('1', '2'), new Work(), MAX_LINE_EDITS),
    ).not.toBeNull()
    // What a request has left of its work must cover what is split, before it is split.
    const short = new Work()
    short.left = near('one', 'two').length
    expect(wordPieces(near('one', 'two'), near('1', '2'), short, MAX_LINE_EDITS)).toBeNull()
    expect(short.left).toBe(near('one', 'two').length)
  })

  it('turns one text into the other, and never cuts a word, a run of spaces or a character', () => {
    const piece = fc.constantFrom(
      'a',
      'ab',
      'b',
      ' ',
      '  ',
      '\n',
      '.',
      'é',
      'e\u0301',
      '😀',
      '𝐀𝐁',
      '_1',
    )
    const text = fc.array(piece, { maxLength: 16 }).map((parts) => parts.join(''))
    const TOKEN = /[\p{L}\p{M}\p{N}_]+|[^\S\n]+|\n|[^]/gu
    const edges = (t: string) => {
      const at = new Set<number>()
      let n = 0
      for (const token of t.match(TOKEN) ?? []) at.add((n += token.length))
      return at
    }
    fc.assert(
      fc.property(text, text, (before, after) => {
        const pieces = wordPieces(before, after, new Work(), MAX_LINE_EDITS)
        if (!pieces) return
        expect(sides(pieces)).toEqual([before, after])
        // Each side's changes start and end where its words do.
        for (const [side, text] of [
          ['del', before],
          ['add', after],
        ] as const) {
          const at = edges(text)
          let n = 0
          for (const p of pieces.filter((p) => p.kind !== (side === 'del' ? 'add' : 'del'))) {
            if (p.kind === side) expect(n === 0 || at.has(n), `${before} | ${after}`).toBe(true)
            n += p.text.length
            if (p.kind === side) expect(at.has(n), `${before} | ${after}`).toBe(true)
          }
        }
      }),
      { numRuns: runs(1000) },
    )
  })
})

describe('the merged text of the rendered view', () => {
  it('holds the new text and the old, word by word where lines changed', () => {
    const text = fc
      .array(fc.constantFrom('a b', 'b c d', 'c', '# d', '', '- e f'), { maxLength: 30 })
      .map((ls) => ls.join('\n'))
    fc.assert(
      fc.property(text, text, (before, after) => {
        const pieces = mergedPieces(before, after)
        if (!pieces) throw new Error('a merge of 30 lines gave up')
        const side = (kind: string) =>
          pieces
            .filter((p) => p.kind !== kind)
            .map((p) => p.text)
            .join('')
        expect(side('add')).toBe(before)
        expect(side('del')).toBe(after)
      }),
      { numRuns: runs(300) },
    )
    expect(mergedPieces('# Title\n\nOne two three.\n', '# Title\n\nOne 2 three.\n')).toEqual([
      { kind: 'same', text: '# Title\n\nOne ' },
      { kind: 'del', text: 'two' },
      { kind: 'add', text: '2' },
      { kind: 'same', text: ' three.\n' },
    ])
  })
})

describe('the merged document of an HTML canvas', () => {
  /** A document's text, as htmlUnits reads it, without its spaces. */
  const textOf = (html: string) =>
    htmlUnits(html, Infinity)!
      .filter((unit) => unit.kind === 'text')
      .map((unit) => unit.raw)
      .join('')
      .replace(/\s+/g, '')
  const withoutScripts = (html: string) =>
    htmlUnits(html, Infinity)!
      .filter((unit) => unit.kind !== 'script')
      .map((unit) => unit.raw)
      .join('')

  it('reads any text whole into units and lines, markup never cut', () => {
    const text = fc
      .array(
        fc.constantFrom(
          '<',
          '>',
          '/',
          '"',
          "'",
          '=',
          '!',
          '-',
          'a',
          'p',
          'script',
          ' ',
          '\n',
          '&',
          ';',
        ),
        {
          maxLength: 40,
        },
      )
      .map((parts) => parts.join(''))
    fc.assert(
      fc.property(text, (html) => {
        const units = htmlUnits(html, Infinity)!
        expect(units.map((unit) => unit.raw).join('')).toBe(html)
        const lines = htmlLines(html, Infinity)!
        expect(lines.join('')).toBe(html)
        // Every line is whole units: its end is one of theirs.
        const ends = new Set<number>()
        let at = 0
        for (const unit of units) ends.add((at += unit.raw.length))
        at = 0
        for (const line of lines) expect(ends.has((at += line.length))).toBe(true)
      }),
      { numRuns: runs(2000) },
    )
    expect(
      htmlUnits('<p title="a>b">x &amp; y</p><!-- <b> -->\n<script>"</p>"</script>z', Infinity),
    ).toEqual([
      { kind: 'markup', raw: '<p title="a>b">' },
      { kind: 'text', raw: 'x &amp; y' },
      { kind: 'markup', raw: '</p>' },
      { kind: 'markup', raw: '<!-- <b> -->' },
      { kind: 'text', raw: '\n' },
      { kind: 'script', raw: '<script>"</p>"</script>' },
      { kind: 'text', raw: 'z' },
    ])
  })

  it("is the new document without its scripts, with the old one's text put back, marked", () => {
    const part = fc.constantFrom(
      '<p>',
      '</p>',
      '<b>',
      '</b>',
      '<li class="x">',
      'one two',
      'three',
      ' ',
      '\n',
      '&amp;',
      '&lt;',
      '<script>x()</script>',
    )
    const doc = fc.array(part, { maxLength: 30 }).map((parts) => parts.join(''))
    fc.assert(
      fc.property(doc, doc, (before, after) => {
        const pieces = mergedHtml(before, after)
        if (!pieces) throw new Error('a merge of 30 units gave up')
        // The new side: the new document, but for its scripts.
        const added = pieces.filter((p) => p.kind !== 'del').map((p) => p.text)
        expect(added.join('')).toBe(withoutScripts(after))
        // The old side: its text, the removed text in place (spaces aside: text of nothing but
        // spaces is not put back).
        const old = pieces.map((p) =>
          p.kind === 'kept' ? textOf(p.text) : p.kind === 'add' ? '' : p.text,
        )
        expect(old.join('').replace(/\s+/g, '')).toBe(textOf(before))
        // What is marked is text, never markup.
        for (const p of pieces) if (p.kind !== 'kept') expect(p.text).not.toMatch(/<[a-z/!]/i)
      }),
      { numRuns: runs(500) },
    )
  })

  it('marks a changed word in place, a reference whole, and keeps the doctype first', () => {
    const page = (word: string, ref: string) =>
      `<!doctype html>\n<html><head><title>T</title></head><body>\n<h1>Notes</h1>\n<p>The ${word} plan ${ref} more.</p>\n</body></html>\n`
    const html = renderHtmlChanges(mergedHtml(page('simple', '&amp;'), page('bold', '&lt;'))!)
    expect(html).toMatch(/^<!doctype html><style>/)
    expect(html).toContain('<h1>Notes</h1>')
    expect(html).toContain(
      '<p>The <del>simple</del><ins>bold</ins> plan <del>&amp;</del><ins>&lt;</ins> more.</p>',
    )
  })
})
