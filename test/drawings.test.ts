import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { renderNotebookBody, renderTextBody } from '../src/render/body'
import { MAX_FRAME_HTML_BYTES } from '../src/render/budget'
import { MAX_CELLS } from '../src/render/notebook'
import { DRAW, BRIDGE_HASH } from '../src/web/asset-urls'
import { call, json, newAccount, ORIGIN } from './support/api'
import { runs } from './support/runs'

// The renderers that draw in the browser (docs/web.md): what the server writes for Mermaid,
// Vega and Vega-Lite, math and notebooks, which scripts a frame loads and its policy allows (by
// exact URL, only those its body needs), how a JSON file becomes a chart, the bounds of a
// notebook, and hostile sources kept as text. test/node/drawings.test.ts draws them in Chromium.

const notebook = (cells: unknown[], metadata: unknown = { language_info: { name: 'python' } }) =>
  JSON.stringify({ cells, metadata, nbformat: 4, nbformat_minor: 5 })
const code = (source: string, outputs: unknown[] = [], count = 1) => ({
  cell_type: 'code',
  execution_count: count,
  metadata: {},
  source,
  outputs,
})
const display = (data: Record<string, unknown>) => ({ output_type: 'display_data', data })

async function publish(key: string, name: string, text: string, renderer?: string) {
  const body = new FormData()
  body.append('file', new File([text], name))
  if (renderer) body.append('renderer_id', renderer)
  const res = await call('/v1/canvases', { method: 'POST', key, body })
  expect(res.status, await res.clone().text()).toBe(201)
  return json(res)
}

/** The owner's frame of a canvas: its document and its policy. */
async function frameOf(account: { cookie: string }, id: string) {
  const page = await (await call(`/c/${id}`, { cookie: account.cookie })).text()
  const src = /<iframe src="([^"]+)"/.exec(page)![1].replace(/&amp;/g, '&')
  const frame = await call(src)
  return {
    html: await frame.text(),
    csp: frame.headers.get('Content-Security-Policy')!,
  }
}

const scriptSrc = (csp: string) => /script-src ([^;]*)/.exec(csp)![1].split(' ')
const loaded = (html: string) =>
  [...html.matchAll(/<script(?: type="module")? src="([^"]+)"/g)].map((m) => m[1])

describe('the renderers that draw', () => {
  it('are listed with their extensions; a JSON file is a chart when its $schema says so', async () => {
    const account = await newAccount()
    const { renderers } = await json(await call('/v1/renderers', { key: account.key }))
    const byId = Object.fromEntries(renderers.map((r: any) => [r.renderer_id, r]))
    expect(byId.mermaid).toEqual({
      renderer_id: 'mermaid',
      name: 'Mermaid diagram',
      exts: ['mmd', 'mermaid'],
      scripts: false,
    })
    expect(byId.notebook.exts).toEqual(['ipynb'])
    expect(byId.vega.exts).toEqual([])

    const spec = { $schema: 'https://vega.github.io/schema/vega-lite/v5.json', mark: 'bar' }
    const chart = await publish(account.key, 'chart.vl.json', JSON.stringify(spec))
    expect(chart.renderer_id).toBe('vega')
    const vega = { $schema: 'https://vega.github.io/schema/vega/v6.json', marks: [] }
    expect((await publish(account.key, 'v.json', JSON.stringify(vega))).renderer_id).toBe('vega')
    const data = await publish(account.key, 'data.json', '{"$schema": "https://example.com/x"}')
    expect(data.renderer_id).toBe('json')
    expect((await publish(account.key, 'flow.mmd', 'graph TD; a-->b')).renderer_id).toBe('mermaid')
    expect((await publish(account.key, 'seq.mermaid', 'graph TD')).renderer_id).toBe('mermaid')
    expect((await publish(account.key, 'n.ipynb', notebook([]))).renderer_id).toBe('notebook')
    const asked = await publish(account.key, 'x.json', '{"mark": "bar"}', 'vega')
    expect(asked.renderer_id).toBe('vega')

    // A new version follows its content, unless another renderer was asked for.
    const update = async (id: string, text: string) => {
      const body = new FormData()
      body.append('file', new File([text], 'chart.json'))
      return json(await call(`/v1/canvases/${id}`, { method: 'PATCH', key: account.key, body }))
    }
    expect((await update(chart.canvas_id, '{"rows": [1, 2]}')).renderer_id).toBe('json')
    expect((await update(chart.canvas_id, JSON.stringify(spec))).renderer_id).toBe('vega')
    const asCode = await publish(account.key, 'c.json', JSON.stringify(spec), 'code')
    expect((await update(asCode.canvas_id, JSON.stringify(spec))).renderer_id).toBe('code')
    // A renderer asked for on another extension stays with its new versions.
    const other = await publish(account.key, 'chart.vl', JSON.stringify(spec), 'vega')
    const again = new FormData()
    again.append('file', new File([JSON.stringify(spec)], 'chart.vl'))
    const next = await call(`/v1/canvases/${other.canvas_id}`, {
      method: 'PATCH',
      key: account.key,
      body: again,
    })
    expect((await json(next)).renderer_id).toBe('vega')
    // An empty notebook's frame says so.
    const empty = await publish(account.key, 'empty.ipynb', '')
    expect((await frameOf(account, empty.canvas_id)).html).toContain('is not a notebook')
  })

  it('a frame loads the scripts its body draws with, by exact URL on its origin, and no other', async () => {
    const account = await newAccount()
    const cases = [
      ['flow.mmd', 'graph TD; a-->b', ['mermaid']],
      ['chart.vl.json', '{"$schema": "https://vega.github.io/schema/vega-lite/v5.json"}', ['vega']],
      ['math.md', 'Euler: $e^{i\\pi}+1=0$', ['math']],
      ['both.md', '$$x$$\n\n```mermaid\ngraph TD; a-->b\n```\n', ['mermaid', 'math']],
      ['plain.md', '# Costs\n\n$5 and $10, `$x$` in code.\n', []],
      ['list.txt', 'just text', []],
    ] as const
    for (const [name, text, draws] of cases) {
      const canvas = await publish(account.key, name, text)
      const frame = await frameOf(account, canvas.canvas_id)
      const urls = draws.map((d) => `${ORIGIN}${DRAW[d]}`)
      expect(loaded(frame.html), name).toEqual(urls)
      // Mermaid's diagram types are chunks beside it: its folder, which holds the drawing
      // libraries alone, is what the policy names for it.
      const allowed = draws.map((d) =>
        d === 'mermaid' ? `${ORIGIN}/assets/draw/` : `${ORIGIN}${DRAW[d]}`,
      )
      expect(scriptSrc(frame.csp).sort(), name).toEqual([`'${BRIDGE_HASH}'`, ...allowed].sort())
      expect(frame.html.includes('<script type="module" src='), name).toBe(
        (draws as readonly string[]).includes('mermaid'),
      )
      expect(frame.csp).not.toMatch(/script-src[^;]*(unsafe|\*|data:|blob:)/)
      const sheet = `${ORIGIN}${DRAW.mathCss}`
      expect(frame.html.includes(`<link rel="stylesheet" href="${sheet}">`), name).toBe(
        (draws as readonly string[]).includes('math'),
      )
      expect(/style-src [^;]*/.exec(frame.csp)![0].includes(sheet)).toBe(
        (draws as readonly string[]).includes('math'),
      )
      // Without comments (a share page), a frame runs scripts only when it may draw; the
      // policy says which.
      const share = await json(
        await call(`/v1/canvases/${canvas.canvas_id}/shares`, {
          method: 'POST',
          key: account.key,
          json: {},
        }),
      )
      const page = await (await call(`/s/${share.token}`)).text()
      const sandbox = /<iframe [^>]*sandbox="([^"]*)"/.exec(page)![1]
      expect(sandbox.startsWith('allow-scripts '), name).toBe(!name.endsWith('.txt'))
      expect(sandbox).not.toContain('allow-same-origin')
    }
    for (const url of Object.values(DRAW))
      expect(url).toMatch(/^\/assets\/draw\/\w+\.(?:[0-9a-f]{16}|[0-9A-Z]{8})\.(js|css)$/)
  })

  it('with FRAME_FETCH=own, a frame fetches from the deployment alone: no source is anywhere', async () => {
    const account = await newAccount()
    const report = await publish(
      account.key,
      'r.md',
      '# Chart\n\n![x](https://images.example/a.png)',
    )
    const page = await publish(account.key, 'p.html', '<img src="https://images.example/a.png">')
    const anywhere = /(^|\s)\*(\s|;|$)/
    for (const id of [report.canvas_id, page.canvas_id]) {
      const viewer = await (await call(`/c/${id}`, { cookie: account.cookie })).text()
      const src = /<iframe src="([^"]+)"/.exec(viewer)![1].replace(/&amp;/g, '&')
      const origin = new URL(src, ORIGIN).origin
      const as = async (fetch: string) =>
        (await call(src, { env: { FRAME_FETCH: fetch } })).headers.get('Content-Security-Policy')!
      expect(await as('any')).toMatch(anywhere)
      const own = await as('own')
      expect(own).not.toMatch(anywhere)
      expect(own).toMatch(new RegExp(`(img|default)-src ${origin} `))
      expect(own).toContain('sandbox')
    }
  })

  it('writes sources as text for the browser to draw, hostile ones kept inert', async () => {
    const hostile = '</pre><script>alert(1)</script><img src=x onerror=alert(2)>'
    const mermaid = await renderTextBody('mermaid', 'mmd', `graph TD\n  a["${hostile}"]`, '#')
    expect(mermaid.draws).toEqual(['mermaid'])
    expect(mermaid.html).toContain(
      '<pre class="mermaid-source">graph TD\n  a[&quot;&lt;/pre&gt;&lt;script&gt;',
    )
    expect(mermaid.html).not.toContain('<script')

    const spec = JSON.stringify({
      $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
      title: hostile,
    })
    const vega = await renderTextBody('vega', 'json', spec, '#')
    expect(vega.draws).toEqual(['vega'])
    expect(vega.html).not.toMatch(/<script|<img/)
    const broken = await renderTextBody('vega', 'json', '{"mark": "bar",', '#')
    expect(broken.draws).toEqual([])
    expect(broken.html).toMatch(
      /^<p class="notice">This chart could not be drawn: .+<\/p><pre>\{&quot;mark/,
    )

    const md = await renderTextBody(
      'markdown',
      'md',
      `Inline $a_1 < b$ and $${hostile}$.\n\n$$\n${hostile}\n$$\n\n\`\`\`mermaid\n${hostile}\n\`\`\`\n`,
      '#',
    )
    expect(md.draws.sort()).toEqual(['math', 'mermaid'])
    expect(md.html).toContain('<span class="math">a_1 &lt; b</span>')
    expect(md.html).toContain('<div class="math display">&lt;/pre&gt;&lt;script&gt;')
    expect(md.html).not.toMatch(/<script|<img/)
  })

  it('inline display math stays in its paragraph; a block of it is a block', async () => {
    const { html } = await renderTextBody('markdown', 'md', 'See $$x$$ here.\n\n$$\ny\n$$\n', '#')
    expect(html).toContain('<p>See <span class="math display">x</span> here.</p>')
    expect(html).toContain('<div class="math display">y</div>')
    const heading = await renderTextBody('markdown', 'md', '$$a$$ and $$b$$\n\n# Heading\n', '#')
    expect(heading.html).toContain('<h1>Heading</h1>')
  })

  it('reads math as GitHub writes it: prices, escapes and code stay text', async () => {
    const cases: [string, string[]][] = [
      ['$x$', ['x']],
      ['It costs $5 and $10.', []],
      ['$ x $ is not math', []],
      ['\\$x\\$ is escaped', []],
      ['`$x$` is code', []],
      ['$a$ and $b$', ['a', 'b']],
      ['$$\\frac{1}{2}$$ inline display', ['\\frac{1}{2}']],
      ['$10$5', []],
      // Each formula ends at its own closing mark; a heading between them stays one.
      ['$$a$$ and $$b$$\n\n# Heading\n\n$$\nc\n$$\n', ['a', 'b', 'c']],
      ['$$ unclosed\n\nstill prose $$', []],
    ]
    for (const [text, formulas] of cases) {
      const { html } = await renderTextBody('markdown', 'md', text, '#')
      const found = [...html.matchAll(/<(?:span|div) class="math(?: display)?">([^<]*)</g)]
      expect(
        found.map((m) => m[1]),
        text,
      ).toEqual(formulas)
    }
  })
})

describe('notebooks', () => {
  const outputs = notebook([
    { cell_type: 'markdown', metadata: {}, source: ['# Title\n', 'with $x^2$ and <b>raw</b>'] },
    code('import os\nprint(1)', [
      { output_type: 'stream', name: 'stdout', text: ['1\n'] },
      { output_type: 'stream', name: 'stderr', text: '\u001b[1;31mwarned\u001b[0m <b>' },
      {
        output_type: 'error',
        ename: 'ValueError',
        evalue: 'bad',
        traceback: ['\u001b[0;31mValueError\u001b[0m: bad', '<script>alert(1)</script>'],
      },
      display({ 'image/png': 'iVBORw0KGgo=\n', 'text/plain': 'fig' }),
      display({ 'image/jpeg': '/9j/4AAQ' }),
      display({ 'image/png': '"><script>alert(1)</script>' }),
      display({ 'image/svg+xml': '<svg onload="alert(1)"><script>alert(2)</script></svg>' }),
      display({
        'text/html': '<table><tr><td>1</td></tr></table></iframe><script>alert(1)</script>',
      }),
      display({ 'application/json': { answer: 42 } }),
      display({ 'text/latex': '$$\\alpha$$' }),
      display({ 'application/vnd.vegalite.v5+json': { mark: 'bar' }, 'text/plain': 'Chart' }),
      { output_type: 'execute_result', execution_count: 1, data: { 'text/plain': ['<Out>'] } },
    ]),
    { cell_type: 'raw', metadata: {}, source: '<raw>' },
  ])

  it('shows every cell and each output kind, with nothing of them able to run', async () => {
    const { html, draws } = await renderTextBody('notebook', 'ipynb', outputs, '#')
    expect(draws.sort()).toEqual(['math', 'vega'])
    expect(html).toContain('<h1>Title</h1>')
    expect(html).toContain('&lt;b&gt;raw&lt;/b&gt;')
    expect(html).toContain('<span class="hljs-keyword">import</span>')
    expect(html).toContain('In [1]:')
    expect(html).toContain('<pre class="output">1\n</pre>')
    expect(html).toMatch(
      /<pre class="output stderr"><span [^>]*class="ansi-red-fg"[^>]*>warned<\/span> &lt;b&gt;<\/pre>/,
    )
    expect(html).toMatch(
      /<pre class="output error"><span class="ansi-red-fg">ValueError<\/span>: bad\n&lt;script&gt;/,
    )
    expect(html).not.toContain('\u001b')
    expect(html).toContain('<img class="output" alt="" src="data:image/png;base64,iVBORw0KGgo=">')
    expect(html).toContain('src="data:image/jpeg;base64,/9j/4AAQ"')
    expect(html).toContain('An image that is not valid base64.')
    expect(html).toContain(
      `src="data:image/svg+xml;charset=utf-8,${encodeURIComponent('<svg onload="alert(1)"><script>alert(2)</script></svg>')}"`,
    )
    const frame =
      /<iframe class="html-output" sandbox="([^"]*)" style="height:\d+px" srcdoc="([^"]*)"/.exec(
        html,
      )!
    expect(frame[1]).toBe('allow-popups allow-popups-to-escape-sandbox')
    expect(frame[2]).toContain('&lt;/iframe&gt;&lt;script&gt;')
    expect(html).toContain('<div class="json">')
    expect(html).toContain('<div class="math display">\\alpha</div>')
    expect(html).toContain('<pre class="vega-source">{&quot;mark&quot;:&quot;bar&quot;}</pre>')
    expect(html).toContain('<pre class="output">&lt;Out&gt;</pre>')
    expect(html).toContain('<div class="cell raw"><pre>&lt;raw&gt;</pre></div>')
    // No tag of the notebook's own made it through but the frames' and images' this wrote.
    expect(html).not.toMatch(/<script|<svg|<table|<b>/)
  })

  it('shows what fits of a notebook too large for a frame, and says so', async () => {
    const cells = Array.from({ length: MAX_CELLS + 10 }, (_, i) => code(`x = ${i}`, [], i))
    const many = await renderTextBody('notebook', 'ipynb', notebook(cells), '#dl')
    expect(many.html).toContain(`In [${MAX_CELLS - 1}]:`)
    expect(many.html).not.toContain(`In [${MAX_CELLS}]:`)
    expect(many.html).toContain('these are the first 5,000 cells')
    expect(many.html).toMatch(/^<p class="notice">Too large to show in full;.+href="#dl"/)

    // 50 MiB of images, streamed in: the frame holds what fits of it, and no more.
    const image = 'A'.repeat(512 * 1024)
    const big = notebook(
      Array.from({ length: 100 }, (_, i) =>
        code(`plot(${i})`, [display({ 'image/png': image })], i),
      ),
    )
    const chunks = (function* () {
      for (let at = 0; at < big.length; at += 1 << 20) yield big.slice(at, at + (1 << 20))
    })()
    const { html } = await renderNotebookBody({ chunks }, '#dl')
    expect(html.length).toBeLessThanOrEqual(MAX_FRAME_HTML_BYTES)
    expect(html).toMatch(/^<p class="notice">Too large to show in full;/)
    expect(html).toContain('In [1]:')
    expect(html).not.toContain('In [99]:')

    // One cell larger than a cell may be stops the reading there, before it is all parsed.
    const giant = notebook([
      code('first', [], 1),
      code('second', [display({ 'image/png': 'A'.repeat(20 * 2 ** 20) })], 2),
      code('third', [], 3),
    ])
    const pieces = (function* () {
      for (let at = 0; at < giant.length; at += 1 << 20) yield giant.slice(at, at + (1 << 20))
    })()
    const stopped = await renderNotebookBody({ chunks: pieces }, '#dl')
    expect(stopped.html).toContain('In [1]:')
    expect(stopped.html).toMatch(
      /Cell 2 is larger than 16[^:]*: it and the cells after it are not shown here\./,
    )
    expect(stopped.html).not.toContain('In [3]:')

    const huge = display({ 'image/png': 'A'.repeat(3 * 1024 * 1024) })
    const one = await renderTextBody(
      'notebook',
      'ipynb',
      notebook([code('x', [huge]), code('y')]),
      '#',
    )
    expect(one.html).toMatch(/An output of 3\.0 MB \(image\/png\) is too large to show here\./)
    expect(one.html).toContain('In [1]:')
  })

  it('names a text too large to show before escaping it, and cuts a source too long', async () => {
    const angles = '<'.repeat(3 * 1024 * 1024)
    const { html } = await renderTextBody(
      'notebook',
      'ipynb',
      notebook([
        code('a'.repeat(3 * 1024 * 1024), [
          { output_type: 'stream', name: 'stdout', text: angles },
        ]),
        code('after', [display({ 'text/html': angles, 'image/svg+xml': angles })], 2),
      ]),
      '#',
    )
    expect(html).toContain("This cell's source is cut at 2.0 MB.")
    expect(html).toMatch(/An output of 3\.0 MB \(text\) is too large to show here\./)
    expect(html).toMatch(/An output of 3\.0 MB \(text\/html\) is too large to show here\./)
    expect(html).toContain('In [2]:')
    expect(html.length).toBeLessThanOrEqual(MAX_FRAME_HTML_BYTES)
  })

  it('says what it could not read, and shows the source', async () => {
    for (const empty of ['{}', notebook([])]) {
      const { html } = await renderTextBody('notebook', 'ipynb', empty, '#')
      expect(html, empty).toContain('This notebook has no cells to show.')
    }
    const broken = await renderTextBody(
      'notebook',
      'ipynb',
      '{"cells": [{"cell_type": "code", "source": "x"}, {',
      '#',
    )
    expect(broken.html).toContain('The notebook could not be read past cell 1')
    const notJson = await renderTextBody('notebook', 'ipynb', 'print("not a notebook")', '#')
    expect(notJson.html).toMatch(
      /This file is not a notebook that can be shown \(.+\); its beginning:<\/p><pre>print\(&quot;not/,
    )
    const old = await renderTextBody(
      'notebook',
      'ipynb',
      JSON.stringify({ nbformat: 3, worksheets: [] }),
      '#',
    )
    expect(old.html).toContain('nbformat 3; only nbformat 4 is shown')
  })

  it('through the frame: highlighted in its language, read from its end; larger than a text file may be', async () => {
    const account = await newAccount()
    const ruby = notebook([code('puts "hi"\n' + '# padding\n'.repeat(100))], {
      kernelspec: { language: 'ruby', name: 'ruby' },
    })
    const canvas = await publish(account.key, 'r.ipynb', ruby)
    const frame = await frameOf(account, canvas.canvas_id)
    expect(frame.html).toContain('<span class="hljs-string">&quot;hi&quot;</span>')
    expect(loaded(frame.html)).toEqual([])

    const image = 'A'.repeat(1024 * 1024)
    const large = notebook(
      Array.from({ length: 8 }, (_, i) => code(`plot(${i})`, [display({ 'image/png': image })], i)),
    )
    const big = await publish(account.key, 'big.ipynb', large)
    const shown = await frameOf(account, big.canvas_id)
    expect(shown.html).toContain('In [7]:')
    expect(shown.html).not.toContain('Too large to show here.')
  })

  it('diffs compare cells, not the JSON around them; search finds cells, not outputs', async () => {
    const account = await newAccount()
    const png = display({ 'image/png': 'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=' })
    const v1 = notebook([
      code('total = revenue - costs', [png]),
      { cell_type: 'markdown', source: 'Quarterly numbers' },
    ])
    const v2 = notebook([
      code('total = revenue - costs - taxes', [png]),
      { cell_type: 'markdown', source: 'Quarterly numbers' },
    ])
    const canvas = await publish(account.key, 'q.ipynb', v1)
    const body = new FormData()
    body.append('file', new File([v2], 'q.ipynb'))
    await call(`/v1/canvases/${canvas.canvas_id}`, { method: 'PATCH', key: account.key, body })
    const page = await (
      await call(`/c/${canvas.canvas_id}/diff?from=1&to=2`, { cookie: account.cookie })
    ).text()
    expect(page).toContain('# %%')
    expect(page).toContain('taxes')
    expect(page).not.toContain('QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo')
    expect(page).not.toContain('execution_count')

    const found = async (q: string) =>
      (await json(await call(`/v1/search?q=${encodeURIComponent(q)}`, { key: account.key })))
        .results.length
    expect(await found('taxes')).toBe(1)
    expect(await found('quarterly')).toBe(1)
    expect(await found('QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo')).toBe(0)
  })
})

describe('notebooks of any shape', () => {
  const text = fc.oneof(
    fc.string(),
    fc.constantFrom('<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', '\u001b[31m<b>'),
  )
  const lines = fc.oneof(text, fc.array(text, { maxLength: 4 }), fc.jsonValue())
  const output = fc.record(
    {
      output_type: fc.constantFrom('stream', 'error', 'display_data', 'execute_result', 'other'),
      name: fc.constantFrom('stdout', 'stderr'),
      text: lines,
      traceback: fc.oneof(fc.array(text, { maxLength: 3 }), fc.jsonValue()),
      data: fc.oneof(
        fc.dictionary(
          fc.constantFrom(
            'text/html',
            'image/svg+xml',
            'image/png',
            'text/markdown',
            'text/latex',
            'application/json',
            'text/plain',
            'application/vnd.vegalite.v5+json',
          ),
          fc.oneof(lines, fc.jsonValue()),
        ),
        fc.jsonValue(),
      ),
    },
    { requiredKeys: [] },
  )
  const cell = fc.record(
    {
      cell_type: fc.constantFrom('code', 'markdown', 'raw', 'other'),
      source: lines,
      execution_count: fc.oneof(fc.integer(), fc.jsonValue()),
      outputs: fc.oneof(fc.array(output, { maxLength: 4 }), fc.jsonValue()),
    },
    { requiredKeys: [] },
  )

  it('never fail, stay within the frame, and let nothing of theirs run', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(cell, fc.jsonValue()), { maxLength: 8 }),
        async (cells) => {
          const { html } = await renderTextBody('notebook', 'ipynb', notebook(cells), '#')
          expect(html.length).toBeLessThanOrEqual(MAX_FRAME_HTML_BYTES)
          // An attribute, not the text of one: an SVG output is an image's data URL, where its
          // markup, percent-encoded, cannot run.
          expect(html).not.toMatch(/<script|<svg|<img[^>]*\sonerror\s*=|<b>/i)
        },
      ),
      { numRuns: runs(200) },
    )
  })
})
