// The comments bridge, run inside a content frame (served inline by src/web/frame-content.ts):
// it tells the page a text selection (as a quote: exact text and some context) or, in point mode,
// a click (as fractions of the content's width and height), shows the comments it is given as
// highlights and pins, scrolls to one on request, and tells the page which one was clicked. It
// talks to the page's exact origin only, and listens to its parent only; the page checks all it
// says, since an HTML canvas's own scripts could say the same.
import { locateQuote, quoteOf, type TextQuote } from './quote'

type Item = { id: string; quote?: TextQuote; point?: { x: number; y: number } }

const MAX_QUOTE = 2000
const HIGHLIGHT = 'canvas-comments'
const ACTIVE = 'canvas-comment-active'
const SKIPPED = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'TEXTAREA'])

const app = document.currentScript?.getAttribute('data-app') ?? ''
if (window.parent !== window && /^https?:\/\/[^/]+$/.test(app)) start(app)

function start(appOrigin: string) {
  const send = (message: object) =>
    window.parent.postMessage({ source: 'canvas-bridge', ...message }, appOrigin)
  let pointMode = false
  let placed: { id: string; range: Range }[] = []
  let pins: HTMLElement[] = []
  const style = document.createElement('style')
  style.textContent =
    `::highlight(${HIGHLIGHT}){background:rgba(255,200,0,.38);color:inherit}` +
    `::highlight(${ACTIVE}){background:rgba(255,140,0,.6);color:inherit}` +
    '.canvas-comment-pin{position:absolute;z-index:2147483647;width:22px;height:22px;margin:-11px 0 0 -11px;' +
    'border-radius:50% 50% 50% 0;background:#f5a623;border:2px solid #fff;box-shadow:0 1px 4px rgba(0,0,0,.4);' +
    'cursor:pointer;padding:0}.canvas-comment-pin[data-active]{background:#e8590c}' +
    'html[data-canvas-point],html[data-canvas-point] *{cursor:crosshair!important}'
  document.head?.appendChild(style) ?? document.documentElement.appendChild(style)

  /** The text a person reads (no scripts or styles), and where each of its nodes starts. */
  function textIndex() {
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
  type Index = ReturnType<typeof textIndex>

  /** Where a boundary point (of a selection) falls in the index's text. */
  function offsetOf(index: Index, container: Node, offset: number) {
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
  function positionOf(index: Index, offset: number): [Node, number] {
    let lo = 0
    let hi = index.starts.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (index.starts[mid] <= offset) lo = mid
      else hi = mid - 1
    }
    return [index.nodes[lo], offset - index.starts[lo]]
  }

  let timer: number | undefined
  let selected = false
  document.addEventListener('selectionchange', () => {
    clearTimeout(timer)
    timer = setTimeout(reportSelection, 300)
  })
  function reportSelection() {
    const selection = document.getSelection()
    if (!selection || selection.isCollapsed || selection.rangeCount === 0) {
      if (selected) send({ type: 'select', quote: null })
      selected = false
      return
    }
    const range = selection.getRangeAt(0)
    const index = textIndex()
    const start = offsetOf(index, range.startContainer, range.startOffset)
    const end = offsetOf(index, range.endContainer, range.endOffset)
    const quote = quoteOf(index.text, start, end, MAX_QUOTE)
    if (!quote) return
    selected = true
    send({ type: 'select', quote })
  }

  document.addEventListener(
    'click',
    (event) => {
      const target = event.target as Element | null
      const pin = target?.closest?.('.canvas-comment-pin')
      if (pin) {
        event.preventDefault()
        event.stopPropagation()
        send({ type: 'open', id: pin.getAttribute('data-id') })
        return
      }
      if (pointMode) {
        event.preventDefault()
        event.stopPropagation()
        const root = document.documentElement
        const x = clamp(event.pageX / Math.max(1, root.scrollWidth))
        const y = clamp(event.pageY / Math.max(1, root.scrollHeight))
        send({ type: 'point', x, y })
        return
      }
      const hit = placedAt(event.clientX, event.clientY)
      if (hit) send({ type: 'open', id: hit })
    },
    true,
  )

  /** The comment whose highlight is under a point of the window, if any. */
  function placedAt(x: number, y: number) {
    if (placed.length === 0) return null
    const caret = document.caretRangeFromPoint?.(x, y)
    if (!caret) return null
    const found = placed.find(({ range }) => {
      try {
        return range.isPointInRange(caret.startContainer, caret.startOffset)
      } catch {
        return false
      }
    })
    return found?.id ?? null
  }

  function show(items: Item[]) {
    for (const pin of pins) pin.remove()
    pins = []
    placed = []
    const index = textIndex()
    const shown: string[] = []
    for (const item of items) {
      if (item.quote && index.nodes.length > 0) {
        const where = locateQuote(index.text, item.quote)
        if (where.kind !== 'found') continue
        const range = document.createRange()
        range.setStart(...positionOf(index, where.start))
        range.setEnd(...positionOf(index, where.end - 1))
        range.setEnd(range.endContainer, range.endOffset + 1)
        placed.push({ id: item.id, range })
        shown.push(item.id)
      } else if (item.point) {
        const pin = document.createElement('button')
        pin.type = 'button'
        pin.className = 'canvas-comment-pin'
        pin.setAttribute('data-id', item.id)
        pin.setAttribute('aria-label', 'Comment')
        const root = document.documentElement
        pin.style.left = `${item.point.x * root.scrollWidth}px`
        pin.style.top = `${item.point.y * root.scrollHeight}px`
        pins.push(pin)
        shown.push(item.id)
      }
    }
    // Pins are placed once the page's size is read, so that they do not change it.
    for (const pin of pins) document.body?.appendChild(pin)
    const highlights = (CSS as unknown as { highlights?: Map<string, unknown> }).highlights
    if (highlights && typeof Highlight === 'function') {
      highlights.set(HIGHLIGHT, new Highlight(...placed.map((p) => p.range)))
      highlights.delete(ACTIVE)
    }
    send({ type: 'placed', ids: shown })
  }

  function focus(id: string) {
    const highlights = (CSS as unknown as { highlights?: Map<string, unknown> }).highlights
    const found = placed.find((p) => p.id === id)
    for (const pin of pins) pin.toggleAttribute('data-active', pin.getAttribute('data-id') === id)
    if (highlights && typeof Highlight === 'function') {
      if (found) highlights.set(ACTIVE, new Highlight(found.range))
      else highlights.delete(ACTIVE)
    }
    const pin = pins.find((p) => p.getAttribute('data-id') === id)
    const rect = found ? found.range.getBoundingClientRect() : pin?.getBoundingClientRect()
    if (!rect) return
    const top = rect.top + window.scrollY - window.innerHeight / 3
    window.scrollTo({ top: Math.max(0, top), behavior: 'smooth' })
  }

  window.addEventListener('message', (event) => {
    if (event.source !== window.parent || event.origin !== appOrigin) return
    const data = event.data as { source?: unknown; type?: unknown } | null
    if (!data || typeof data !== 'object' || data.source !== 'canvas-page') return
    const message = data as Record<string, unknown>
    if (data.type === 'comments' && Array.isArray(message.items)) {
      show(message.items.filter(isItem).slice(0, 1000))
    } else if (data.type === 'focus' && typeof message.id === 'string') {
      focus(message.id)
    } else if (data.type === 'mode') {
      pointMode = message.point === true
      document.documentElement.toggleAttribute('data-canvas-point', pointMode)
    }
  })
  send({ type: 'ready' })
}

const clamp = (n: number) => (Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 0)

function isItem(value: unknown): value is Item {
  if (!value || typeof value !== 'object') return false
  const item = value as Record<string, unknown>
  if (typeof item.id !== 'string') return false
  const quote = item.quote as Record<string, unknown> | undefined
  if (quote !== undefined && (typeof quote !== 'object' || typeof quote?.exact !== 'string')) {
    return false
  }
  const point = item.point as Record<string, unknown> | undefined
  if (point !== undefined) {
    if (typeof point !== 'object' || typeof point?.x !== 'number' || typeof point?.y !== 'number')
      return false
  }
  return true
}
