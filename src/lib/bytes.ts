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

/** Where `needle` first occurs in `haystack`, or -1. */
export function indexOfBytes(haystack: Uint8Array, needle: Uint8Array): number {
  if (needle.byteLength === 0) return 0
  const first = needle[0]
  const last = haystack.byteLength - needle.byteLength
  for (
    let at = haystack.indexOf(first);
    at !== -1 && at <= last;
    at = haystack.indexOf(first, at + 1)
  ) {
    let i = 1
    while (i < needle.byteLength && haystack[at + i] === needle[i]) i++
    if (i === needle.byteLength) return at
  }
  return -1
}
