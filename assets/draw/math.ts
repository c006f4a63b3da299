// Typesets the math of a frame (Markdown's `$…$` and `$$…$$`, in a Markdown canvas or a
// notebook's Markdown cells): the server marks each formula as a `.math` element holding its TeX,
// and KaTeX replaces its text. Loaded only by frames that hold math (src/render/drawing.ts).
import katex from 'katex'
import { sources } from './shown'

for (const element of sources('.math')) {
  const tex = element.textContent ?? ''
  element.dataset.source = tex
  try {
    // A formula KaTeX cannot read is shown with its error in place (throwOnError: false), in red.
    katex.render(tex, element, {
      displayMode: element.classList.contains('display'),
      throwOnError: false,
      // Links of \href and \url, and \htmlClass and the like: not a formula's to make.
      trust: false,
      maxSize: 50,
      maxExpand: 1000,
    })
  } catch {
    // What KaTeX itself cannot survive (nesting past the stack) stays as its TeX; the rest go on.
    element.textContent = tex
  }
}
