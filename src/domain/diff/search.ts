import { diffArrays } from 'diff'

// The search under every diff the app shows: lines of two versions, words of two changed lines.
// Its cost is bounded by the work the search does, never by a clock: a deployed Worker's clock
// stands still while it computes, so the library's `timeout` would never fire.
//
// The search is Myers' algorithm (the `diff` library), whose work grows with the items it compares
// times the edits it finds, whatever they are. So, first, each item becomes a number (equal items,
// equal numbers), which makes every comparison one step however long the items; the items the two
// sides share at their start and end are set aside, as matching them needs no search; and the
// search over what is left gives up after its edit limit or when the request's work runs out.
// One request draws every search it makes from one Work: lines first, then words while any is
// left, so words never add to the worst case of a diff page, only use what its lines did not.

/** The most lines added and removed that the line diff shows. */
export const MAX_EDIT_LENGTH = 1_000
/** The comparisons one request's diff may make in all, its lines' and its words' together. */
export const MAX_DIFF_STEPS = 100_000

export type RunKind = 'same' | 'add' | 'del'
export type Run = { kind: RunKind; count: number }

/** What is left of one request's work. */
export class Work {
  left = MAX_DIFF_STEPS
}

/** Items as numbers: equal items, equal numbers, however long they are. */
export class Numbering {
  private readonly numbers = new Map<string, number>()
  of(item: string): number {
    let n = this.numbers.get(item)
    if (n === undefined) this.numbers.set(item, (n = this.numbers.size))
    return n
  }
}

const OUT_OF_STEPS = Symbol('out of steps')

/**
 * The runs of items kept, removed and added that turn `a` into `b`, or null when more than
 * `maxEdit` items differ or the search would need more than `work` has left. A search but the
 * first (`reserve`) also sets aside what its steps off the edge of the edit graph may cost (they
 * compare nothing: two for each edit it may explore), so that every search of a request together
 * stays within MAX_DIFF_STEPS.
 */
export function searchRuns(
  a: number[],
  b: number[],
  work: Work,
  maxEdit: number,
  reserve = false,
): Run[] | null {
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
  const restA = a.slice(head, a.length - tail)
  const restB = b.slice(head, b.length - tail)
  let middle: Run[] | null
  if (restA.length === 0 || restB.length === 0) {
    // Only added or only removed: nothing to search.
    middle = [
      { kind: 'del', count: restA.length },
      { kind: 'add', count: restB.length },
    ]
    if (restA.length + restB.length > maxEdit) middle = null
  } else {
    const limit = Math.min(maxEdit, restA.length + restB.length)
    const set = reserve ? 2 * limit + 2 : 0
    if (work.left < set) return null
    work.left -= set
    middle = search(restA, restB, work, limit)
  }
  if (!middle) return null
  const same = (count: number): Run => ({ kind: 'same', count })
  return [same(head), ...middle, same(tail)].filter((run) => run.count > 0)
}

/** The runs between two sequences with nothing in common at their ends, or null. */
function search(a: number[], b: number[], work: Work, maxEdit: number): Run[] | null {
  try {
    const changes = diffArrays(a, b, {
      maxEditLength: maxEdit,
      comparator: (x, y) => {
        if (--work.left < 0) throw OUT_OF_STEPS
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
