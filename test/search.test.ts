import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { bytesOf, call, errorOf, json, newAccount, newCanvas, newKey, upload } from './support/api'
import { sweepUntilDone } from './support/state'

// Full-text search (docs/api.md#search): a workspace's canvases by the words of their titles and
// latest text, best match first, with a snippet; kept in step with versions and deletions.

type Hit = { canvas_id: string; title: string; snippet: string; highlights: [number, number][] }

async function search(key: string, q: string, extra = '') {
  const res = await call(`/v1/search?q=${encodeURIComponent(q)}${extra}`, { key })
  expect(res.status, await res.clone().text()).toBe(200)
  return json<{ results: Hit[]; next_cursor: string | null }>(res)
}

const ids = (page: { results: Hit[] }) => page.results.map((hit) => hit.canvas_id)

/** The words marked in a hit's snippet. */
const marked = (hit: Hit) => hit.highlights.map(([from, to]) => hit.snippet.slice(from, to))

async function newVersion(key: string, canvasId: string, text: string, ext = 'md') {
  const fileId = await upload(key, bytesOf(text), ext, 'text/markdown')
  const res = await call(`/v1/canvases/${canvasId}`, {
    method: 'PATCH',
    key,
    json: { file_id: fileId, ext },
  })
  expect(res.status).toBe(200)
}

describe('search', () => {
  it('finds each kind of text canvas by a word in it, with the word marked', async () => {
    const { key } = await newAccount()
    const kinds = [
      { ext: 'md', text: '# Findings\n\nThe **pelican** migration report.' },
      { ext: 'txt', text: 'log line: walrus sighted at dawn' },
      { ext: 'py', text: 'def narwhal():\n    return 1\n' },
      { ext: 'csv', text: 'animal,count\nmanatee,4\n' },
      { ext: 'json', text: '{"animal": "axolotl"}' },
      { ext: 'html', text: '<h1>Notes</h1><p>A <b>quokka</b> &amp; friends</p>' },
    ]
    const words = ['pelican', 'walrus', 'narwhal', 'manatee', 'axolotl', 'quokka']
    const made = []
    for (const kind of kinds) made.push(await newCanvas(key, kind.text, { ext: kind.ext }))
    for (const [i, word] of words.entries()) {
      const page = await search(key, word)
      expect(ids(page)).toEqual([made[i].canvas_id])
      expect(marked(page.results[0]).map((w) => w.toLowerCase())).toEqual([word])
    }
    // An HTML page's text as a reader sees it: entities read, no markup in the snippet.
    const [html] = (await search(key, 'quokka')).results
    expect(html.snippet).toContain('quokka & friends')
    expect(html.snippet).not.toContain('<')
  })

  it('shows a reader’s words in snippets: no Markdown markup, cell markers or math delimiters', async () => {
    const { key } = await newAccount()
    const report = [
      '# Latency report',
      '',
      'The **ibex** stage is *fast*; see [the chart](https://example.com/c.png).',
      '',
      '| Stage | p50 |',
      '| --- | --- |',
      '| ibex | 42 |',
      '',
      '$$\\frac{1}{N}\\sum_{i=1}^{N}(x_i-\\mu)^2$$',
      '',
      '```python',
      'ibex = measure()',
      '```',
    ].join('\n')
    await newCanvas(key, report, { ext: 'md' })
    const notebook = JSON.stringify({
      cells: [
        {
          cell_type: 'markdown',
          metadata: {},
          source: '# Gazelle notebook\n\nThe **gazelle** runs.',
        },
        { cell_type: 'code', metadata: {}, source: 'gazelle = 1', outputs: [], execution_count: 1 },
      ],
      metadata: {},
      nbformat: 4,
      nbformat_minor: 5,
    })
    await newCanvas(key, notebook, { ext: 'ipynb' })
    for (const word of ['ibex', 'frac', 'gazelle']) {
      const [hit] = (await search(key, word)).results
      expect(hit.snippet, word).not.toMatch(/(^|\s)#|\*\*|\||\$\$|```|# %%|\]\(/)
    }
    const [math] = (await search(key, 'frac')).results
    expect(math.snippet).toContain('\\frac{1}{N}')
    const [cells] = (await search(key, 'gazelle')).results
    expect(cells.snippet).toContain('The gazelle runs')
  })

  it('finds a Chinese, Japanese or Korean word inside its sentence, and shows it as written', async () => {
    const { key } = await newAccount()
    const texts = {
      季度: '我们的季度报告已经完成。',
      タワー: '東京タワーに行きました。',
      보고서: '보고서를 작성했다.',
    }
    for (const text of Object.values(texts)) await newCanvas(key, text, { ext: 'txt' })
    for (const [word, text] of Object.entries(texts)) {
      const page = await search(key, word)
      expect(page.results, word).toHaveLength(1)
      const [hit] = page.results
      // As written: no joiner the index put between the characters.
      expect(hit.snippet).toBe(text)
      expect(marked(hit).join('')).toBe(word)
    }
    // Words are still words: one character of a longer one does not find another's text.
    expect((await search(key, '季度报告')).results).toHaveLength(1)
    expect((await search(key, '报告季度')).results).toHaveLength(0)
  })

  it('reads the text of canvases published before search: on a search, and by the sweep', async () => {
    const { key } = await newAccount()
    const first = await newCanvas(key, 'An old note about the okapi.', { title: 'Old one' })
    const second = await newCanvas(key, 'Another old note: the tapir.', { title: 'Old two' })
    // As the migration that made search left them: a title and no text yet.
    for (const canvas of [first, second]) {
      await env.DB.prepare(
        "UPDATE canvas_texts SET body = '', text_pending = 1 WHERE canvas_id = ?",
      )
        .bind(canvas.canvas_id)
        .run()
    }
    expect((await search(key, 'okapi')).results).toHaveLength(0)
    expect((await search(key, 'old')).results).toHaveLength(2)
    // That search read them, after its answer: the next one finds their words.
    expect(ids(await search(key, 'okapi'))).toEqual([first.canvas_id])
    expect(ids(await search(key, 'tapir'))).toEqual([second.canvas_id])
    // The sweep reads those no search asked for.
    await env.DB.prepare("UPDATE canvas_texts SET body = '', text_pending = 1 WHERE canvas_id = ?")
      .bind(second.canvas_id)
      .run()
    await sweepUntilDone(Date.now())
    const waiting = await env.DB.prepare(
      'SELECT count(*) AS n FROM canvas_texts WHERE text_pending = 1',
    ).first<{ n: number }>()
    expect(waiting!.n).toBe(0)
    expect(ids(await search(key, 'tapir'))).toEqual([second.canvas_id])
  })

  it('never finds an HTML page by its scripts, styles or markup', async () => {
    const { key } = await newAccount()
    await newCanvas(
      key,
      '<style>.ocelot{color:red}</style><script>const tapir = 1</script>' +
        '<p class="gecko">Visible okapi</p>',
      { ext: 'html' },
    )
    for (const word of ['ocelot', 'tapir', 'gecko', 'class', 'script']) {
      expect(ids(await search(key, word))).toEqual([])
    }
    expect(ids(await search(key, 'okapi'))).toHaveLength(1)
  })

  it('finds by title, by phrase and by prefix, every term required, title first', async () => {
    const { key } = await newAccount()
    const inTitle = await newCanvas(key, 'nothing here', { title: 'Quarterly budget' })
    const inText = await newCanvas(key, 'the quarterly budget was late', { title: 'Notes' })
    const apart = await newCanvas(key, 'budget of the quarterly kind', { title: 'Other' })
    expect(ids(await search(key, 'budget quarterly'))).toEqual([
      inTitle.canvas_id,
      ...ids(await search(key, 'budget quarterly')).slice(1),
    ])
    expect(new Set(ids(await search(key, 'budget quarterly')))).toEqual(
      new Set([inTitle.canvas_id, inText.canvas_id, apart.canvas_id]),
    )
    expect(ids(await search(key, '"quarterly budget" late'))).toEqual([inText.canvas_id])
    expect(new Set(ids(await search(key, 'quart* budg*')))).toEqual(
      new Set([inTitle.canvas_id, inText.canvas_id, apart.canvas_id]),
    )
    expect(ids(await search(key, 'budget missingword'))).toEqual([])
    // Case and accents do not matter; a plural finds its singular (the index stems English).
    expect(ids(await search(key, 'QUARTERLY Budgets'))).toHaveLength(3)
  })

  it('follows a new version, a new title and a delete', async () => {
    const { key } = await newAccount()
    const canvas = await newCanvas(key, '# Draft\n\nabout flamingos', { ext: 'md' })
    expect(ids(await search(key, 'flamingos'))).toEqual([canvas.canvas_id])
    await newVersion(key, canvas.canvas_id, '# Final\n\nabout penguins')
    expect(ids(await search(key, 'flamingos'))).toEqual([])
    expect(ids(await search(key, 'penguins'))).toEqual([canvas.canvas_id])
    await call(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'PATCH',
      key,
      json: { title: 'Renamed ibis' },
    })
    expect(ids(await search(key, 'ibis'))).toEqual([canvas.canvas_id])
    expect((await call(`/v1/canvases/${canvas.canvas_id}`, { method: 'DELETE', key })).ok).toBe(
      true,
    )
    expect(ids(await search(key, 'penguins'))).toEqual([])
    expect(ids(await search(key, 'ibis'))).toEqual([])
  })

  it('finds a site by the text of its pages', async () => {
    const { key } = await newAccount()
    const index = await upload(key, bytesOf('<h1>Home of the kestrel</h1>'), 'html', 'text/html')
    const about = await upload(key, bytesOf('# About\n\nwe ring plovers'), 'md', 'text/markdown')
    const script = await upload(key, bytesOf('const heron = 1'), 'js', 'text/javascript')
    const res = await call('/v1/canvases', {
      method: 'POST',
      key,
      json: {
        title: 'Birds site',
        items: [
          { path: 'index.html', file_id: index },
          { path: 'about.md', file_id: about },
          { path: 'app.js', file_id: script },
        ],
      },
    })
    expect(res.status).toBe(201)
    const site = await json(res)
    expect(ids(await search(key, 'kestrel'))).toEqual([site.canvas_id])
    expect(ids(await search(key, 'plovers'))).toEqual([site.canvas_id])
    expect(ids(await search(key, 'heron'))).toEqual([])
  })

  it('never shows another workspace’s canvases', async () => {
    const mine = await newAccount()
    const theirs = await newAccount()
    await newCanvas(theirs.key, 'secret pangolin plans', { title: 'pangolin' })
    expect(ids(await search(mine.key, 'pangolin'))).toEqual([])
    expect(ids(await search(theirs.key, 'pangolin'))).toHaveLength(1)
  })

  it('pages by cursor, in the ranking’s order', async () => {
    const { key } = await newAccount()
    for (let i = 0; i < 5; i++) await newCanvas(key, `lemur number ${i}`)
    const first = await search(key, 'lemur', '&limit=2')
    expect(first.results).toHaveLength(2)
    const second = await search(key, 'lemur', `&limit=2&cursor=${first.next_cursor}`)
    const third = await search(key, 'lemur', `&limit=2&cursor=${second.next_cursor}`)
    expect(third.next_cursor).toBeNull()
    const all = [...ids(first), ...ids(second), ...ids(third)]
    expect(new Set(all).size).toBe(5)
  })

  it('indexes a bounded head of a large file', async () => {
    const { key } = await newAccount()
    const big = `okapi ${'filler '.repeat(200_000)} zebu`
    await newCanvas(key, big)
    expect(ids(await search(key, 'okapi'))).toHaveLength(1)
    expect(ids(await search(key, 'zebu'))).toEqual([])
  })

  it('is read scope: a read-only key searches, no key is 401', async () => {
    const account = await newAccount()
    await newCanvas(account.key, 'the wombat')
    const reader = await newKey(account.cookie, ['read'])
    expect(ids(await search(reader, 'wombat'))).toHaveLength(1)
    expect((await call('/v1/search?q=wombat')).status).toBe(401)
    // A query that is not one is told so only to a key that may search.
    expect((await call('/v1/search?q=%22')).status).toBe(401)
  })

  it('refuses a query with nothing to search for, saying why', async () => {
    const { key } = await newAccount()
    const refused = async (q: string, reason: RegExp) => {
      const res = await call(`/v1/search?q=${encodeURIComponent(q)}`, { key })
      expect(res.status, q).toBe(400)
      expect(await json(res)).toMatchObject(errorOf('invalid_request', reason))
    }
    await refused('', /^q: /)
    await refused('   ', /q: is empty/)
    await refused('"open', /q: a quote is opened and never closed/)
    await refused('*** ()', /q: has no letters or digits/)
    await refused('a'.repeat(201), /q: is 201 characters, over the limit of 200/)
    await refused('a\u0000b', /q: holds a control character/)
  })

  it('answers 40 hostile queries with results or a 400, never a 500 or another’s canvas', async () => {
    const mine = await newAccount()
    const theirs = await newAccount()
    await newCanvas(mine.key, 'secret near body title owl', { title: 'mine' })
    const other = await newCanvas(theirs.key, 'secret near body title owl', { title: 'theirs' })
    const hostile = [
      'owl AND secret',
      'owl OR nothing',
      'NOT owl',
      'owl NOT secret',
      'NEAR(owl secret)',
      'NEAR(owl secret, 2)',
      'NEAR/2',
      'body:owl',
      'title : owl',
      '{workspace_id}:*',
      `workspace_id:${theirs.workspaceId}`,
      `"${theirs.workspaceId}"`,
      '^owl',
      '+owl',
      '-owl',
      '(owl',
      'owl)',
      '()',
      '*',
      '**',
      '*owl',
      'ow*l',
      '""',
      '""""',
      'a"b"c',
      "'",
      '\\',
      "owl'; DROP TABLE canvases; --",
      '%',
      '_',
      'a\u0000b',
      '\u0001owl',
      '\u202eowl',
      'owl\u200b',
      '😀',
      'ow\tl\nsecret',
      'x'.repeat(10_000),
      'owl '.repeat(50),
      'é'.repeat(200),
      '"owl secret"*',
    ]
    expect(hostile).toHaveLength(40)
    for (const q of hostile) {
      const res = await call(`/v1/search?q=${encodeURIComponent(q)}`, { key: mine.key })
      expect([200, 400], JSON.stringify(q)).toContain(res.status)
      const body = await json(res)
      if (res.status === 400) {
        expect(body.error.code).toBe('invalid_request')
        expect(body.error.message).toMatch(/^q: /)
      } else {
        expect(ids(body), JSON.stringify(q)).not.toContain(other.canvas_id)
      }
    }
  })
})
