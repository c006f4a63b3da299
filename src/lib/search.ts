// What the service's search and its clients (the web app, the CLI) share: a page's size, and a
// snippet cut into the text around the words found and those words (docs/api.md#search).

/** The most results of a page of a search. */
export const MAX_SEARCH_LIMIT = 50

/** A snippet as its runs of text, each marked `found` when it is one of the words found. */
export function snippetParts(
  text: string,
  highlights: [number, number][],
): { text: string; found: boolean }[] {
  const parts = []
  let at = 0
  for (const [from, to] of highlights) {
    parts.push(
      { text: text.slice(at, from), found: false },
      { text: text.slice(from, to), found: true },
    )
    at = to
  }
  parts.push({ text: text.slice(at), found: false })
  return parts.filter((part) => part.text !== '')
}
