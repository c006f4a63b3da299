// The panel and the content frame, through the frame's bridge (assets/frame-bridge.ts): the panel
// tells it which comments to highlight and which is looked at; it says what is selected, pointed
// at or clicked. Messages from the frame are checked: an HTML canvas's own scripts share its window.
import { ID } from './events'
import type { Panel } from './panel'
import { visible } from './state'
import type { TextQuote } from '../quote'

export function post(p: Panel, message: object) {
  // A sandboxed frame's origin is opaque: it cannot be named as a target. What is sent is what
  // its content's readers see anyway (quotes of it, points), never a comment's text.
  p.frame?.contentWindow?.postMessage({ source: 'canvas-page', ...message }, '*')
}

export function tellFrame(p: Panel) {
  const items = visible(p.state)
    .filter((c) => c.anchor)
    .map((c) => ({ id: c.comment_id, ...c.anchor }))
  post(p, { type: 'comments', items })
}

/** Marks a comment as the one looked at, in the list and in the frame. */
export function focus(p: Panel, id: string) {
  p.state.active = id
  for (const li of p.list.querySelectorAll('.comment')) {
    li.classList.toggle('active', li.getAttribute('data-comment-id') === id)
  }
  post(p, { type: 'focus', id })
}

/** Answers what the frame says. */
export function listenToFrame(p: Panel) {
  window.addEventListener('message', (event) => {
    if (!p.frame || event.source !== p.frame.contentWindow) return
    const message = bridgeMessage(event.data)
    if (message) heard(p, message)
  })
}

function heard(p: Panel, message: BridgeMessage) {
  const state = p.state
  switch (message.type) {
    case 'ready':
      state.placed = null
      tellFrame(p)
      if (state.pointMode) post(p, { type: 'mode', point: true })
      break
    case 'placed':
      state.placed = new Set(message.ids)
      p.drawList()
      break
    case 'select':
      if (message.quote) p.setAnchor({ quote: message.quote })
      else if (state.anchor && 'quote' in state.anchor && !p.form.body.value) p.setAnchor(null)
      break
    case 'point':
      p.setAnchor({ point: { x: message.x, y: message.y } })
      p.setPointMode(false)
      p.openPanel()
      p.form.body.focus()
      break
    case 'open':
      if (!state.comments.has(message.id)) break
      p.openPanel()
      focus(p, message.id)
      p.list
        .querySelector(`[data-comment-id="${message.id}"]`)
        ?.scrollIntoView({ block: 'nearest' })
      break
  }
}

type BridgeMessage =
  | { type: 'ready' }
  | { type: 'placed'; ids: string[] }
  | { type: 'select'; quote: TextQuote | null }
  | { type: 'point'; x: number; y: number }
  | { type: 'open'; id: string }

const text = (v: unknown, max: number) => typeof v === 'string' && v.length <= max
const fraction = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 1

/**
 * What the frame said, if it is one of the bridge's messages with fields of the right types and
 * sizes: an HTML canvas's own scripts can post anything from the same window.
 */
export function bridgeMessage(data: unknown): BridgeMessage | null {
  if (!data || typeof data !== 'object') return null
  const m = data as Record<string, unknown>
  if (m.source !== 'canvas-bridge') return null
  switch (m.type) {
    case 'ready':
      return { type: 'ready' }
    case 'placed':
      if (!Array.isArray(m.ids) || m.ids.length > 1000) return null
      if (!m.ids.every((id) => typeof id === 'string' && ID.test(id))) return null
      return { type: 'placed', ids: m.ids as string[] }
    case 'select':
      return selection(m.quote)
    case 'point':
      return fraction(m.x) && fraction(m.y)
        ? { type: 'point', x: m.x as number, y: m.y as number }
        : null
    case 'open':
      return typeof m.id === 'string' && ID.test(m.id) ? { type: 'open', id: m.id } : null
  }
  return null
}

function selection(value: unknown): BridgeMessage | null {
  if (value === null) return { type: 'select', quote: null }
  const q = value as Record<string, unknown> | undefined
  if (!q || typeof q !== 'object') return null
  if (!text(q.exact, 2000) || (q.exact as string).trim() === '') return null
  if (q.prefix !== undefined && !text(q.prefix, 200)) return null
  if (q.suffix !== undefined && !text(q.suffix, 200)) return null
  const quote: TextQuote = { exact: q.exact as string }
  if (q.prefix) quote.prefix = q.prefix as string
  if (q.suffix) quote.suffix = q.suffix as string
  return { type: 'select', quote }
}
