// Draws the Vega and Vega-Lite charts of a frame: each `.vega-source` element holds a
// specification as JSON text and is replaced by its chart, or by the error and the text. The
// expressions of a spec are interpreted, never compiled into code (no eval in the frame), and no
// URL is fetched but the frame's own site's (its Content-Security-Policy says which).
import embed from 'vega-embed'
import { expressionInterpreter } from 'vega-interpreter'
import { dark, showFailure, sources } from './shown'

async function draw() {
  for (const element of sources('.vega-source')) {
    const text = element.textContent ?? ''
    try {
      const spec = JSON.parse(text)
      // vega-embed lets a spec set its own options (usermeta.embedOptions): not these.
      if (spec?.usermeta && typeof spec.usermeta === 'object') delete spec.usermeta.embedOptions
      const chart = document.createElement('div')
      chart.className = 'chart'
      element.replaceWith(chart)
      chart.dataset.source = text
      try {
        await embed(chart, spec, {
          ast: true,
          expr: expressionInterpreter,
          actions: false,
          renderer: 'svg',
          theme: dark() ? 'dark' : undefined,
          // The frame's own background shows through, in either theme.
          config: { background: 'transparent' },
        })
      } catch (error) {
        showFailure(chart, 'chart', error)
      }
    } catch (error) {
      showFailure(element, 'chart', error)
    }
  }
}

void draw()
