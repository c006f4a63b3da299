import type { MarkedExtension, Tokens } from 'marked'
import { mathSource } from './drawing'

// Math in Markdown, as GitHub writes it: `$…$` inline and `$$…$$` on lines of their own (or
// inline). A dollar sign opens a formula only when text follows it at once, and closes one only
// after text and before anything but a digit, so "costs $5 or $10" stays prose; `\$` is a dollar
// sign; a formula never spans a code span's backtick. The formula's TeX is kept as text; the frame typesets it (assets/draw/math.ts).

const INLINE = /^\$(?!\s)((?:\\[\s\S]|[^\\$`])+?)(?<!\s)\$(?!\d)/
const INLINE_DISPLAY = /^\$\$((?:\\[\s\S]|[^\\$`])+?)\$\$/
const BLOCK = /^ {0,3}\$\$[ \t]*\n?([\s\S]+?)\n?[ \t]*\$\$[ \t]*(?:\n+|$)/

type MathToken = Tokens.Generic & { text: string; display: boolean }

export const MATH: MarkedExtension = {
  extensions: [
    {
      name: 'mathBlock',
      level: 'block',
      start: (src: string) => /^ {0,3}\$\$/m.exec(src)?.index,
      tokenizer(src: string) {
        const found = BLOCK.exec(src)
        if (!found) return undefined
        return { type: 'mathBlock', raw: found[0], text: found[1].trim(), display: true }
      },
      renderer: (token) => `${mathSource((token as MathToken).text, true)}\n`,
    },
    {
      name: 'math',
      level: 'inline',
      start: (src: string) => {
        const at = src.indexOf('$')
        return at === -1 ? undefined : at
      },
      tokenizer(src: string) {
        const display = INLINE_DISPLAY.exec(src)
        const found = display ?? INLINE.exec(src)
        if (!found) return undefined
        return { type: 'math', raw: found[0], text: found[1].trim(), display: Boolean(display) }
      },
      renderer: (token) => mathSource((token as MathToken).text, (token as MathToken).display),
    },
  ],
}
