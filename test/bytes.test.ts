import fc from 'fast-check'
import { expect, it } from 'vitest'
import { indexOfBytes, occurrences } from '../src/lib/bytes'
import { runs } from './support/runs'

// The byte search the Worker runs on clients' bodies (multipart boundaries, a text field's bytes):
// the same answers as the plainest search, in time linear in the bytes, whatever they are.

function naive(haystack: Uint8Array, needle: Uint8Array): number[] {
  const found: number[] = []
  for (let i = 0; i + needle.length <= haystack.length;) {
    let k = 0
    while (k < needle.length && haystack[i + k] === needle[k]) k++
    if (k === needle.length) {
      found.push(i)
      i += needle.length
    } else i++
  }
  return found
}

it('finds what the plainest search finds, without overlaps', () => {
  const small = fc.uint8Array({ maxLength: 40 }).map((a) => a.map((b) => b % 3))
  fc.assert(
    fc.property(
      small,
      small.filter((n) => n.length > 0),
      (haystack, needle) => {
        const expected = naive(haystack, needle)
        expect([...occurrences(haystack, needle)]).toEqual(expected)
        expect(indexOfBytes(haystack, needle)).toBe(expected[0] ?? -1)
      },
    ),
    { numRuns: runs(2000) },
  )
})

it('looks at each byte a bounded number of times, on bytes made to match all but the end', () => {
  const needle = new Uint8Array(4096).fill(97)
  needle[4095] = 98
  const haystack = new Uint8Array(1 << 20).fill(97)
  let reads = 0
  const counted = new Proxy(haystack, {
    get(target, key) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++
      const value = Reflect.get(target, key)
      return typeof value === 'function' ? value.bind(target) : value
    },
  }) as Uint8Array
  expect(indexOfBytes(counted, needle)).toBe(-1)
  // A search that compared the needle at each position would read about 4096 bytes a position.
  expect(reads).toBeLessThanOrEqual(3 * haystack.length)
})
