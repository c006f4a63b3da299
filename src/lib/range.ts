// The Range header of a GET on a stored object, read as RFC 9110 section 14 says: one byte range
// is served as 206; a header that is not a valid bytes range (or asks for several) is ignored and
// the whole object is served; a valid range that lies wholly past the end is 416.

export type RangeVerdict =
  { kind: 'whole' } | { kind: 'unsatisfiable' } | { kind: 'part'; offset: number; length: number }

const SINGLE = /^bytes=(?:(\d{1,15})-(\d{0,15})|-(\d{1,15}))$/i

export function readRange(header: string | undefined, size: number): RangeVerdict {
  if (header === undefined) return { kind: 'whole' }
  const match = SINGLE.exec(header.trim())
  if (!match) return { kind: 'whole' }
  const [, first, last, suffix] = match
  if (suffix !== undefined) {
    const length = Math.min(Number(suffix), size)
    // A zero suffix selects nothing; of an empty object, "the last n bytes" are all of it.
    if (length === 0) return size === 0 ? { kind: 'whole' } : { kind: 'unsatisfiable' }
    return { kind: 'part', offset: size - length, length }
  }
  const start = Number(first)
  const end = last === '' ? Infinity : Number(last)
  if (end < start) return { kind: 'whole' }
  if (start >= size) return { kind: 'unsatisfiable' }
  return { kind: 'part', offset: start, length: Math.min(end, size - 1) - start + 1 }
}
