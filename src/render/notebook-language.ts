// A notebook's language, from the last bytes of its file. Jupyter writes a notebook's keys in
// order, so its metadata (and with it the kernel's language) comes after every cell: reading it
// first lets the cells be highlighted as they stream in. Bounded: a search in a short text.

/** How much of a notebook's end is read for its language. */
export const NOTEBOOK_TAIL = 64 * 1024

export function languageInTail(tail: string): string | null {
  return (
    after(tail, '"language_info"', /"name"\s*:\s*"([^"\\]{1,40})"/) ??
    after(tail, '"kernelspec"', /"language"\s*:\s*"([^"\\]{1,40})"/)
  )
}

/** The value `pattern` finds in the object that follows the last `key` of `text`. */
function after(text: string, key: string, pattern: RegExp): string | null {
  const at = text.lastIndexOf(key)
  if (at === -1) return null
  return pattern.exec(text.slice(at, at + 1024))?.[1].toLowerCase() ?? null
}
