// The comments shown in the frame: quotes as highlights of the text (the CSS Custom Highlight
// API), points as pins; one of them looked at, and which one is under a point of the window.
import { locateQuote, type TextQuote } from '../quote'
import { positionOf, textIndex } from './text-index'

export type Item = { id: string; quote?: TextQuote; point?: { x: number; y: number } }

const HIGHLIGHT = 'canvas-comments'
const ACTIVE = 'canvas-comment-active'

/** The highlights' and pins' look, added to the document once. */
export const MARKS_STYLE =
  `::highlight(${HIGHLIGHT}){background:rgba(255,200,0,.38);color:inherit}` +
  `::highlight(${ACTIVE}){background:rgba(255,140,0,.6);color:inherit}` +
  '.canvas-comment-pin{position:absolute;z-index:2147483647;width:22px;height:22px;margin:-11px 0 0 -11px;' +
  'border-radius:50% 50% 50% 0;background:#f5a623;border:2px solid #fff;box-shadow:0 1px 4px rgba(0,0,0,.4);' +
  'cursor:pointer;padding:0}.canvas-comment-pin[data-active]{background:#e8590c}' +
  'html[data-canvas-point],html[data-canvas-point] *{cursor:crosshair!important}'

const highlights = () => (CSS as unknown as { highlights?: Map<string, unknown> }).highlights

export class Marks {
  private placed: { id: string; range: Range }[] = []
  private pins: HTMLElement[] = []

  /** The comment whose highlight is under a point of the window, if any. */
  at(x: number, y: number) {
    if (this.placed.length === 0) return null
    const caret = document.caretRangeFromPoint?.(x, y)
    if (!caret) return null
    const found = this.placed.find(({ range }) => {
      try {
        return range.isPointInRange(caret.startContainer, caret.startOffset)
      } catch {
        return false
      }
    })
    return found?.id ?? null
  }

  show(items: Item[]): string[] {
    for (const pin of this.pins) pin.remove()
    this.pins = []
    this.placed = []
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
        this.placed.push({ id: item.id, range })
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
        this.pins.push(pin)
        shown.push(item.id)
      }
    }
    // Pins are placed once the page's size is read, so that they do not change it.
    for (const pin of this.pins) document.body?.appendChild(pin)
    const set = highlights()
    if (set && typeof Highlight === 'function') {
      set.set(HIGHLIGHT, new Highlight(...this.placed.map((p) => p.range)))
      set.delete(ACTIVE)
    }
    return shown
  }

  focus(id: string) {
    const set = highlights()
    const found = this.placed.find((p) => p.id === id)
    for (const pin of this.pins)
      pin.toggleAttribute('data-active', pin.getAttribute('data-id') === id)
    if (set && typeof Highlight === 'function') {
      if (found) set.set(ACTIVE, new Highlight(found.range))
      else set.delete(ACTIVE)
    }
    const pin = this.pins.find((p) => p.getAttribute('data-id') === id)
    const rect = found ? found.range.getBoundingClientRect() : pin?.getBoundingClientRect()
    if (!rect) return
    const top = rect.top + window.scrollY - window.innerHeight / 3
    window.scrollTo({ top: Math.max(0, top), behavior: 'smooth' })
  }
}
