/** Chunks joined into one array of `size` bytes (their total); a single chunk is returned as is. */
export function concatBytes(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]
  const out = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    out.set(chunk, at)
    at += chunk.byteLength
  }
  return out
}

/**
 * Where `needle` occurs in `haystack`, without overlaps: Knuth-Morris-Pratt, so every byte is
 * looked at a bounded number of times whatever the bytes are. Both may be a client's, and a
 * search that compared the needle at each position is quadratic on bytes made to match all but
 * the needle's last byte everywhere (SECURITY.md).
 */
export function* occurrences(haystack: Uint8Array, needle: Uint8Array): Generator<number> {
  // fallback[i]: the length of the longest proper prefix of needle[0..i] that is also its suffix.
  const fallback = new Uint32Array(needle.length)
  for (let i = 1, k = 0; i < needle.length; i++) {
    while (k > 0 && needle[i] !== needle[k]) k = fallback[k - 1]
    if (needle[i] === needle[k]) k++
    fallback[i] = k
  }
  for (let i = 0, k = 0; i < haystack.length; i++) {
    while (k > 0 && haystack[i] !== needle[k]) k = fallback[k - 1]
    if (haystack[i] === needle[k]) k++
    if (k === needle.length) {
      yield i - k + 1
      k = 0
    }
  }
}

/** Where `needle` first occurs in `haystack`, or -1 (an empty needle: 0). */
export function indexOfBytes(haystack: Uint8Array, needle: Uint8Array): number {
  if (needle.byteLength === 0) return 0
  for (const at of occurrences(haystack, needle)) return at
  return -1
}
