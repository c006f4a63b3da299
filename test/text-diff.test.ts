import { Diff, structuredPatch } from 'diff'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { diffTexts, MAX_DIFF_STEPS, MAX_EDIT_LENGTH, type TextDiff } from '../src/domain/text-diff'
import { DIFF_WORST_CASES } from './support/worst-cases'
import { runs } from './support/runs'

// The diff page's diff: bounded by the work of its search, whatever the two texts, and when it
// answers, its hunks are a shortest edit from one text to the other. (Its CPU time is measured by
// `npm run bench:render`, not asserted here.)

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
      const work = workOf(() => diffTexts(before, after))
      expect(work.comparisons, c.name).toBeLessThanOrEqual(MAX_DIFF_STEPS + 1)
      expect(work.moves, c.name).toBeLessThanOrEqual(work.comparisons + 2 * MAX_EDIT_LENGTH + 1)
      if (c.name.includes('(shown)')) expect(work.result, c.name).not.toBeNull()
    }
    // 20,000 lines each changed near its end: too different to show, found out within the bound.
    const [before, after] = DIFF_WORST_CASES[0].make()
    expect(diffTexts(before, after)).toBeNull()
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
    expect(diffTexts(before, after)).toEqual({
      added: 1,
      removed: 1,
      hunks: [
        {
          oldStart: 2498,
          newStart: 2498,
          lines: [
            { kind: 'same', text: 'line 2497' },
            { kind: 'same', text: 'line 2498' },
            { kind: 'same', text: 'line 2499' },
            { kind: 'del', text: 'line 2500' },
            { kind: 'add', text: 'line 2500 changed' },
            { kind: 'same', text: 'line 2501' },
            { kind: 'same', text: 'line 2502' },
            { kind: 'same', text: 'line 2503' },
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
            { kind: 'same', text: 'a' },
            { kind: 'del', text: 'b' },
            { kind: 'add', text: 'b' },
          ],
        },
      ],
    })
  })
})
