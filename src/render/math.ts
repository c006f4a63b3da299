import type { MarkedExtension, Tokens } from 'marked'
import { mathSource } from './drawing'

// Math in Markdown, as GitHub writes it: `$…$` inline and `$$…$$` on lines of their own (or
// inline). A dollar sign opens a formula only when text follows it at once, and closes one only
// after text and before anything but a digit, so "costs $5 or $10" stays prose; `\$` is a dollar
// sign; a formula never spans a code span's backtick or a blank line. The formula's TeX is kept
// as text; the frame typesets it (assets/draw/math.ts). Every search for a closing mark looks at
// most MAX_FORMULA characters ahead, so an unclosed `$$` costs the same as any other text.

const MAX_FORMULA = 8 * 1024
const INLINE = /^\$(?!\s)((?:\\[\s\S]|[^\\$`])+?)(?<!\s)\$(?!\d)/
const BLANK_LINE = /\n[ \t]*\n/

type MathToken = Tokens.Generic & { text: string; display: boolean; block: boolean }

/** The TeX between `$$` at `open` and the next `$$` (within MAX_FORMULA), and where that ends. */
function displayed(src: string, open: number): { tex: string; end: number } | null {
  const ahead = src.slice(open, open + MAX_FORMULA + 2)
  const close = ahead.indexOf('$$')
  if (close === -1) return null
  const tex = ahead.slice(0, close)
  if (tex.trim() === '' || tex.endsWith('\\') || tex.includes('`') || BLANK_LINE.test(tex)) {
    return null
  }
  return { tex: tex.trim(), end: open + close + 2 }
}

/**
 * A display formula that is a block of its own at the start of `src`: `$$` after at most three
 * spaces, and its closing `$$` ending a line.
 */
function block(src: string): { raw: string; tex: string } | null {
  const open = /^ {0,3}\$\$/.exec(src)
  const found = open && displayed(src, open[0].length)
  const rest = found && /^[ \t]*(?:\n+|$)/.exec(src.slice(found.end))
  return found && rest ? { raw: src.slice(0, found.end + rest[0].length), tex: found.tex } : null
}

export const MATH: MarkedExtension = {
  extensions: [
    {
      name: 'mathBlock',
      level: 'block',
      // No `start`: marked would cut a paragraph at each place a formula may start and read the
      // lines after each cut again (a setext heading's underline), quadratic in the lines. A
      // formula inside a paragraph is read by the inline rule below, display all the same.
      tokenizer(src: string) {
        // The closing `$$` ends its line; `$$a$$ and more` is a paragraph with inline math.
        const found = block(src)
        if (!found) return undefined
        return { type: 'mathBlock', raw: found.raw, text: found.tex, display: true, block: true }
      },
      renderer: (token) => `${mathSource((token as MathToken).text, true, true)}\n`,
    },
    {
      name: 'math',
      level: 'inline',
      start: (src: string) => {
        const at = src.indexOf('$')
        return at === -1 ? undefined : at
      },
      tokenizer(src: string) {
        const display = src.startsWith('$$') ? displayed(src, 2) : null
        if (display) {
          const raw = src.slice(0, display.end)
          return { type: 'math', raw, text: display.tex, display: true, block: false }
        }
        const found = INLINE.exec(src.slice(0, MAX_FORMULA + 2))
        if (!found) return undefined
        return { type: 'math', raw: found[0], text: found[1].trim(), display: false, block: false }
      },
      renderer: (token) => mathSource((token as MathToken).text, (token as MathToken).display),
    },
  ],
}
