// The comments bridge, run inside a content frame (served inline by src/web/frames/content.ts):
// it tells the page a text selection (as a quote: exact text and some context) or, in point mode,
// a click (as fractions of the content's width and height), shows the comments it is given as
// highlights and pins (bridge/marks.ts), scrolls to one on request, and tells the page which one
// was clicked. It talks to the page's exact origin only, and listens to its parent only; the page
// checks all it says, since an HTML canvas's own scripts could say the same.
import { Marks, MARKS_STYLE, type Item } from './bridge/marks'
import { offsetOf, textIndex } from './bridge/text-index'
import { quoteOf } from './quote'

const MAX_QUOTE = 2000

type Send = (message: object) => void

const app = document.currentScript?.getAttribute('data-app') ?? ''
if (window.parent !== window && /^https?:\/\/[^/]+$/.test(app)) start(app)

function start(appOrigin: string) {
  const send: Send = (message) =>
    window.parent.postMessage({ source: 'canvas-bridge', ...message }, appOrigin)
  const marks = new Marks()
  const mode = { point: false }
  const style = document.createElement('style')
  style.textContent = MARKS_STYLE
  document.head?.appendChild(style) ?? document.documentElement.appendChild(style)
  reportsSelections(send)
  document.addEventListener('click', (event) => clicked(event, send, marks, mode), true)
  window.addEventListener('message', (event) => {
    if (event.source !== window.parent || event.origin !== appOrigin) return
    const data = event.data as { source?: unknown; type?: unknown } | null
    if (!data || typeof data !== 'object' || data.source !== 'canvas-page') return
    const message = data as Record<string, unknown>
    if (data.type === 'comments' && Array.isArray(message.items)) {
      send({ type: 'placed', ids: marks.show(message.items.filter(isItem).slice(0, 1000)) })
    } else if (data.type === 'focus' && typeof message.id === 'string') {
      marks.focus(message.id)
    } else if (data.type === 'mode') {
      mode.point = message.point === true
      document.documentElement.toggleAttribute('data-canvas-point', mode.point)
    }
  })
  send({ type: 'ready' })
}

/** Tells the page what is selected, as a quote, a moment after the selection settles. */
function reportsSelections(send: Send) {
  let timer: number | undefined
  let selected = false
  const report = () => {
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
  document.addEventListener('selectionchange', () => {
    clearTimeout(timer)
    timer = setTimeout(report, 300)
  })
}

/** A click: on a pin or a highlight, which comment it opens; in point mode, where it fell. */
function clicked(event: MouseEvent, send: Send, marks: Marks, mode: { point: boolean }) {
  const target = event.target as Element | null
  const pin = target?.closest?.('.canvas-comment-pin')
  if (pin) {
    event.preventDefault()
    event.stopPropagation()
    send({ type: 'open', id: pin.getAttribute('data-id') })
    return
  }
  if (mode.point) {
    event.preventDefault()
    event.stopPropagation()
    const root = document.documentElement
    const x = clamp(event.pageX / Math.max(1, root.scrollWidth))
    const y = clamp(event.pageY / Math.max(1, root.scrollHeight))
    send({ type: 'point', x, y })
    return
  }
  const hit = marks.at(event.clientX, event.clientY)
  if (hit) send({ type: 'open', id: hit })
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
