// The text of the frame's document as a person reads it (no scripts or styles), with where each of
// its text nodes starts: what a quote is found in, and what a selection is turned into.
const SKIPPED = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'TEXTAREA'])

/** The text a person reads (no scripts or styles), and where each of its nodes starts. */
export function textIndex() {
  const nodes: Text[] = []
  const starts: number[] = []
  let text = ''
  const walker = document.createTreeWalker(document.body ?? document.documentElement, 4, {
    acceptNode: (node) =>
      SKIPPED.has(node.parentElement?.tagName ?? '') ||
      node.parentElement?.closest('.canvas-comment-pin')
        ? NodeFilter.FILTER_REJECT
        : NodeFilter.FILTER_ACCEPT,
  })
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    nodes.push(node as Text)
    starts.push(text.length)
    text += (node as Text).data
  }
  return { nodes, starts, text }
}
export type Index = ReturnType<typeof textIndex>

/** Where a boundary point (of a selection) falls in the index's text. */
export function offsetOf(index: Index, container: Node, offset: number) {
  const at = index.nodes.indexOf(container as Text)
  if (at !== -1) return index.starts[at] + offset
  const point = document.createRange()
  point.setStart(container, offset)
  // The first text node at or after the point (nodes are in document order).
  let lo = 0
  let hi = index.nodes.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (point.comparePoint(index.nodes[mid], 0) >= 0) hi = mid
    else lo = mid + 1
  }
  return lo < index.nodes.length ? index.starts[lo] : index.text.length
}

/** The DOM position of an offset in the index's text. */
export function positionOf(index: Index, offset: number): [Node, number] {
  let lo = 0
  let hi = index.starts.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (index.starts[mid] <= offset) lo = mid
    else hi = mid - 1
  }
  return [index.nodes[lo], offset - index.starts[lo]]
}
