// Draws the Mermaid diagrams of a frame (a .mmd canvas, or a Markdown fence marked `mermaid`):
// each `.mermaid-source` element holds a diagram's text and is replaced by its SVG, or by the
// parser's error and the text. Loaded only by frames that hold a diagram (src/render/drawing.ts).
import mermaid from 'mermaid'
import { dark, showFailure, sources } from './shown'

mermaid.initialize({
  startOnLoad: false,
  // Labels are text: no HTML of a diagram's and no click handlers reach the page.
  securityLevel: 'strict',
  theme: dark() ? 'dark' : 'default',
})

async function draw() {
  let n = 0
  for (const element of sources('.mermaid-source')) {
    const text = element.textContent ?? ''
    try {
      // The parser's own message for a diagram it cannot read; render's would be a picture of it.
      await mermaid.parse(text)
      const { svg } = await mermaid.render(`diagram-${n++}`, text)
      const figure = document.createElement('div')
      figure.className = 'diagram'
      figure.innerHTML = svg
      element.replaceWith(figure)
    } catch (error) {
      showFailure(element, 'diagram', error)
    }
  }
}

void draw()
