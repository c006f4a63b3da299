// Rendered output is bounded whatever the input: a 5 MiB file of short lines or small JSON objects
// once rendered into 170 MB of HTML, over a Worker's memory. Renderers write into a budget, which
// refuses a piece that would pass it (or one piece too many); what was written is then shown with a
// note and a download.

/** The most HTML a frame carries, in UTF-8 bytes. */
export const MAX_FRAME_HTML_BYTES = 8 * 1024 * 1024
// Kept aside for the page around the content and the closing tags of a cut structure.
const RESERVE = 64 * 1024
// Time goes with the number of pieces (JSON nodes, table cells, code rows) more than with bytes:
// 800,000 cells of one CSV row took half a second. Past this many a frame is cut too.
export const MAX_PIECES = 200_000

/** What a frame's scripts draw in the browser (render/drawing.ts). */
export type Drawing = 'mermaid' | 'vega' | 'math'

export class HtmlBudget {
  private readonly parts: string[] = []
  /** What the frame's scripts are to draw in what was written (render/drawing.ts). */
  readonly draws = new Set<Drawing>()
  private used = 0
  private pieces = 0
  /** Set once a piece was refused: the output is a prefix of the whole. */
  cut = false

  constructor(private readonly limit = MAX_FRAME_HTML_BYTES - RESERVE) {}

  /** Adds the piece if it fits; false (and from then on `cut`) when it does not. */
  add(piece: string): boolean {
    if (this.cut) return false
    const size = utf8Length(piece)
    if (this.used + size > this.limit || ++this.pieces > MAX_PIECES) {
      this.cut = true
      return false
    }
    this.parts.push(piece)
    this.used += size
    return true
  }

  /** Closing tags of what was opened: always written, from the reserve. */
  close(piece: string) {
    this.parts.push(piece)
    this.used += piece.length
  }

  /** Bytes still free. */
  get room(): number {
    return this.cut ? 0 : this.limit - this.used
  }

  toString(): string {
    return this.parts.join('')
  }
}

/** UTF-8 length without encoding: ASCII text (most markup) costs one test. */
export function utf8Length(text: string): number {
  if (!/[^\x00-\x7f]/.test(text)) return text.length
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) bytes += 1
    else if (code < 0x800) bytes += 2
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      bytes += 4
      i++
    } else bytes += 3
  }
  return bytes
}
