import { env } from 'cloudflare:test'
import fc from 'fast-check'
import { unzipSync, strFromU8 } from 'fflate'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  bytesOf,
  call,
  errorOf,
  follow,
  json,
  newAccount,
  upload,
  type Account,
} from './support/api'
import { badPath } from './support/hostile-values'
import { runs } from './support/runs'
import { realServices } from './support/state'

// Sites: a version of many files by path, through the API (docs/sites.md).

const FILES: Record<string, { text: string; ext: string; mime: string }> = {
  'index.html': {
    text: '<link rel="stylesheet" href="style.css"><script src="js/app.js"></script>',
    ext: 'html',
    mime: 'text/html',
  },
  'style.css': { text: 'body { color: rebeccapurple }', ext: 'css', mime: 'text/css' },
  'js/app.js': { text: 'fetch("data/points.json")', ext: 'js', mime: 'text/javascript' },
  'data/points.json': { text: '[1,2,3]', ext: 'json', mime: 'application/json' },
}

let owner: Account
let ids: Record<string, string>

async function uploadAll(key: string, files: typeof FILES) {
  const out: Record<string, string> = {}
  for (const [path, f] of Object.entries(files)) {
    out[path] = await upload(key, bytesOf(f.text), f.ext, f.mime)
  }
  return out
}

const itemsOf = (fileIds: Record<string, string>) =>
  Object.entries(fileIds).map(([path, file_id]) => ({ path, file_id }))

async function createSite(body: Record<string, unknown>, key = owner.key) {
  return call('/v1/canvases', { method: 'POST', key, json: { title: 'Report', ...body } })
}

beforeAll(async () => {
  owner = await newAccount()
  ids = await uploadAll(owner.key, FILES)
})

describe('create and read a site', () => {
  it('makes a canvas of every file, main index.html, ext and renderer from it', async () => {
    const res = await createSite({ items: itemsOf(ids), permanent: true })
    expect(res.status).toBe(201)
    const canvas = await json(res)
    const total = Object.values(FILES).reduce((n, f) => n + f.text.length, 0)
    expect(canvas).toMatchObject({ ext: 'html', renderer_id: 'html', version: 1, size: total })

    const detail = await json(await call(`/v1/canvases/${canvas.canvas_id}`, { key: owner.key }))
    expect(detail.main).toBe('index.html')
    expect(detail.file).toMatchObject({
      file_id: ids['index.html'],
      size: FILES['index.html'].text.length,
    })
    expect(detail.items.map((i: any) => i.path)).toEqual([
      'data/points.json',
      'index.html',
      'js/app.js',
      'style.css',
    ])
    expect(detail.items[0]).toEqual({
      path: 'data/points.json',
      file_id: ids['data/points.json'],
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      size: 7,
      mime: 'application/json',
    })
  })

  it('takes an ext that agrees with the main item, on create and update', async () => {
    const res = await createSite({ items: itemsOf(ids), ext: 'html' })
    expect(res.status).toBe(201)
    const canvas = await json(res)
    expect(canvas).toMatchObject({ ext: 'html', renderer_id: 'html' })
    const update = await call(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'PATCH',
      key: owner.key,
      json: { items: itemsOf(ids), main: 'style.css', ext: 'css' },
    })
    expect(update.status).toBe(200)
    expect(await json(update)).toMatchObject({ version: 2, ext: 'css', renderer_id: 'code' })
    const refused = await call(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'PATCH',
      key: owner.key,
      json: { items: itemsOf(ids), ext: 'css' },
    })
    expect(refused.status).toBe(400)
    expect(await json(refused)).toEqual(
      errorOf(
        'invalid_request',
        "ext: 'css' disagrees with the main item 'index.html' (html); leave ext out or send 'html'",
      ),
    )
  })

  it('a single file shows no items; its one item is index.<ext>', async () => {
    const res = await createSite({ file_id: ids['style.css'], ext: 'css' })
    const canvas = await json(res)
    const detail = await json(await call(`/v1/canvases/${canvas.canvas_id}`, { key: owner.key }))
    expect(detail.items).toBeUndefined()
    expect(detail.main).toBeUndefined()
    const item = await call(`/v1/canvases/${canvas.canvas_id}/content/index.css`, {
      key: owner.key,
    })
    expect(await (await follow(item)).text()).toBe(FILES['style.css'].text)
  })

  it('main picks another item; without index.html the first is main', async () => {
    const chosen = await json(await createSite({ items: itemsOf(ids), main: 'style.css' }))
    expect(chosen).toMatchObject({ ext: 'css', renderer_id: 'code' })
    const { 'index.html': _, ...rest } = ids
    const first = await json(await createSite({ items: itemsOf(rest) }))
    expect(first.ext).toBe('css')
    const detail = await json(await call(`/v1/canvases/${first.canvas_id}`, { key: owner.key }))
    expect(detail.main).toBe('style.css')
  })

  it('serves each item by path, with its own type, for the latest and a given version', async () => {
    const canvas = await json(await createSite({ items: itemsOf(ids) }))
    const id = canvas.canvas_id
    const res = await call(`/v1/canvases/${id}/content/js/app.js`, { key: owner.key })
    expect(res.status).toBe(302)
    const bytes = await follow(res)
    expect(bytes.headers.get('Content-Type')).toMatch(/^text\/javascript/)
    expect(bytes.headers.get('Content-Disposition')).toContain('filename="app.js"')
    expect(await bytes.text()).toBe(FILES['js/app.js'].text)
    const v1 = await call(`/v1/canvases/${id}/versions/1/content/data/points.json?dl=1`, {
      key: owner.key,
    })
    const got = await follow(v1)
    expect(got.headers.get('Content-Disposition')).toMatch(/^attachment; filename="points.json"/)
    expect(await got.text()).toBe('[1,2,3]')

    const missing = await call(`/v1/canvases/${id}/content/nope.css`, { key: owner.key })
    expect(missing.status).toBe(404)
    expect(await json(missing)).toEqual(
      errorOf('not_found', "path: version 1 has no file 'nope.css'"),
    )
    const noVersion = await call(`/v1/canvases/${id}/versions/9/content/style.css`, {
      key: owner.key,
    })
    expect((await json(noVersion)).error.code).toBe('version_not_found')
    const other = await newAccount()
    const foreign = await call(`/v1/canvases/${id}/content/style.css`, { key: other.key })
    expect((await json(foreign)).error.code).toBe('canvas_not_found')
  })

  it('paths with spaces, unicode and reserved URL characters round-trip percent-encoded', async () => {
    const names = ['my report/a b.txt', 'données/été.txt', 'q/a?b#c%d.txt']
    const fileIds: Record<string, string> = {}
    for (const name of names) fileIds[name] = await upload(owner.key, bytesOf(name))
    const canvas = await json(await createSite({ items: itemsOf(fileIds) }))
    for (const name of names) {
      const encoded = name.split('/').map(encodeURIComponent).join('/')
      const res = await call(`/v1/canvases/${canvas.canvas_id}/content/${encoded}`, {
        key: owner.key,
      })
      expect(res.status, name).toBe(302)
      expect(await (await follow(res)).text()).toBe(name)
    }
  })
})

describe('new versions of a site', () => {
  it('changing one file of a hundred uploads one file; the rest are reused', async () => {
    const files: Record<string, string> = {}
    for (let i = 0; i < 100; i++) files[`pages/p${i}.html`] = `<p>page ${i}</p>`
    const fileIds: Record<string, string> = {}
    for (const [path, text] of Object.entries(files)) {
      fileIds[path] = await upload(owner.key, bytesOf(text), 'html', 'text/html')
    }
    const canvas = await json(await createSite({ items: itemsOf(fileIds), main: 'pages/p0.html' }))
    const workspaceFiles = () =>
      env.DB.prepare('SELECT count(*) AS n FROM files WHERE workspace_id = ?')
        .bind(owner.workspaceId)
        .first<{ n: number }>()
    const before = await workspaceFiles()
    // One file changes: one presign and PUT for it, every other item keeps its file_id.
    const changed = await upload(owner.key, bytesOf('<p>page 7, edited</p>'), 'html', 'text/html')
    const after = await workspaceFiles()
    expect(after!.n).toBe(before!.n + 1)
    const res = await call(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'PATCH',
      key: owner.key,
      json: { items: itemsOf({ ...fileIds, 'pages/p7.html': changed }), main: 'pages/p0.html' },
    })
    expect(res.status).toBe(200)
    expect((await json(res)).version).toBe(2)
    const v1 = await call(`/v1/canvases/${canvas.canvas_id}/versions/1/content/pages/p7.html`, {
      key: owner.key,
    })
    expect(await (await follow(v1)).text()).toBe('<p>page 7</p>')
    const v2 = await call(`/v1/canvases/${canvas.canvas_id}/content/pages/p7.html`, {
      key: owner.key,
    })
    expect(await (await follow(v2)).text()).toBe('<p>page 7, edited</p>')
  })

  it('a site can become one file and back; ext and renderer follow the main item', async () => {
    const canvas = await json(await createSite({ items: itemsOf(ids) }))
    const id = canvas.canvas_id
    const patch = (body: unknown) =>
      call(`/v1/canvases/${id}`, { method: 'PATCH', key: owner.key, json: body })
    const single = await json(await patch({ file_id: ids['index.html'] }))
    expect(single).toMatchObject({ version: 2, ext: 'html', renderer_id: 'html' })
    const detail = await json(await call(`/v1/canvases/${id}`, { key: owner.key }))
    expect(detail.items).toBeUndefined()
    const md = await upload(owner.key, bytesOf('# Notes'), 'md', 'text/markdown')
    const notes = await json(
      await patch({
        items: [{ path: 'notes/README.md', file_id: md }, ...itemsOf(ids)],
        main: 'notes/README.md',
      }),
    )
    expect(notes).toMatchObject({ version: 3, ext: 'md', renderer_id: 'markdown' })
  })

  it('a failed update changes nothing: no version, no items', async () => {
    const canvas = await json(await createSite({ items: itemsOf(ids) }))
    const res = await call(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'PATCH',
      key: owner.key,
      json: { items: [...itemsOf(ids), { path: 'extra.css', file_id: 'nosuchfile' }] },
    })
    expect(res.status).toBe(404)
    expect(await json(res)).toEqual(errorOf('file_not_found', 'items.4.file_id: no such file'))
    const rows = await env.DB.prepare(
      'SELECT version, count(*) AS n FROM version_items WHERE canvas_id = ? GROUP BY version',
    )
      .bind(canvas.canvas_id)
      .all()
    expect(rows.results).toEqual([{ version: 1, n: 4 }])
  })
})

describe('refused lists', () => {
  const cases: [string, Record<string, unknown>, number, string, string][] = [
    [
      'both kinds',
      { file_id: 'x', items: [{ path: 'a', file_id: 'x' }] },
      400,
      'invalid_request',
      'file_id: send either file_id or items, not both',
    ],
    [
      'ext that disagrees with the main item',
      { items: [{ path: 'a.html', file_id: 'x' }], ext: 'md' },
      400,
      'invalid_request',
      "ext: 'md' disagrees with the main item 'a.html' (html); leave ext out or send 'html'",
    ],
    [
      'main alone',
      { file_id: 'x', ext: 'txt', main: 'a' },
      400,
      'invalid_request',
      'main: only goes with items',
    ],
    [
      'main not an item',
      { items: [{ path: 'a.html', file_id: 'x' }], main: 'b.html' },
      400,
      'invalid_request',
      "main: 'b.html' is not the path of any item",
    ],
    [
      'duplicate',
      {
        items: [
          { path: 'a.html', file_id: 'x' },
          { path: 'a.html', file_id: 'y' },
        ],
      },
      400,
      'invalid_request',
      "items.1.path: 'a.html' is given more than once",
    ],
    [
      'file and folder',
      {
        items: [
          { path: 'a/b.css', file_id: 'x' },
          { path: 'a', file_id: 'y' },
        ],
      },
      400,
      'invalid_request',
      "items.1.path: 'a' is a file and also a folder of another item",
    ],
    ['empty list', { items: [] }, 400, 'invalid_request', 'items: must hold at least one item'],
    ['no content', {}, 400, 'invalid_request', 'file_id: a canvas needs file_id or items'],
    [
      'traversal',
      { items: [{ path: '../etc/passwd', file_id: 'x' }] },
      400,
      'invalid_request',
      'items.0.path: must not have an empty, . or .. segment',
    ],
    [
      'absolute',
      { items: [{ path: '/a.html', file_id: 'x' }] },
      400,
      'invalid_request',
      'items.0.path: must be relative (no leading /)',
    ],
    [
      'backslash',
      { items: [{ path: 'a\\b.html', file_id: 'x' }] },
      400,
      'invalid_request',
      'items.0.path: must separate folders with /, not \\',
    ],
    [
      'control',
      { items: [{ path: 'a\nb.html', file_id: 'x' }] },
      400,
      'invalid_request',
      'items.0.path: must not contain control characters',
    ],
    [
      'long',
      { items: [{ path: 'é'.repeat(257), file_id: 'x' }] },
      400,
      'invalid_request',
      'items.0.path: must be at most 512 bytes',
    ],
  ]
  // Paths one common file system or another cannot hold as they are: refused by name.
  const device =
    'must not have a segment named as a Windows device (con, prn, aux, nul, com1, lpt1...)'
  const oneName = 'are one name where case or Unicode normalization is ignored (macOS, Windows)'
  const portable: [string, string[], string][] = [
    ['C1 control', ['a\u009b31mb.txt'], 'items.0.path: must not contain control characters'],
    [
      'bidi override',
      ['index.html', 'invoice\u202etxt.exe'],
      'items.1.path: must not contain bidirectional controls',
    ],
    ['device', ['index.html', 'con'], `items.1.path: ${device}`],
    ['device with an extension', ['aux.txt'], `items.0.path: ${device}`],
    ['device in capitals', ['logs/LPT1.log'], `items.0.path: ${device}`],
    [
      'trailing dot',
      ['docs./a.html'],
      'items.0.path: must not have a segment ending in a dot or a space',
    ],
    [
      'trailing space',
      ['a.html '],
      'items.0.path: must not have a segment ending in a dot or a space',
    ],
    ['drive', ['C:x.html'], 'items.0.path: must not contain : (a drive or a stream on Windows)'],
    [
      'stream',
      ['a.html:evil'],
      'items.0.path: must not contain : (a drive or a stream on Windows)',
    ],
    ['case', ['A.html', 'b.css', 'a.html'], `items.2.path: 'a.html' and 'A.html' ${oneName}`],
    [
      'NFC and NFD',
      ['\u00e9.html', 'e\u0301.html'],
      `items.1.path: 'e\u0301.html' and '\u00e9.html' ${oneName}`,
    ],
    [
      'file beside a folder in another case',
      ['a/b', 'A'],
      `items.1.path: 'A' and a folder of 'a/b' ${oneName}`,
    ],
  ]
  for (const [name, paths, message] of portable) {
    cases.push([
      name,
      { items: paths.map((path) => ({ path, file_id: 'x' })) },
      400,
      'invalid_request',
      message,
    ])
  }

  it.each(cases)('%s', async (_name, body, status, code, message) => {
    const res = await createSite(body)
    expect(res.status).toBe(status)
    expect(await json(res)).toEqual(errorOf(code, message))
  })

  it('takes MAX_SITE_ITEMS items at the longest paths in one request', async () => {
    // 1,000 paths of 512 bytes (one file at every path): the JSON body stays under its 1 MiB cap.
    const items = Array.from({ length: 1000 }, (_, i) => ({
      path: `${String(i).padStart(4, '0')}/${'é'.repeat(251)}x.css`,
      file_id: ids['style.css'],
    }))
    expect(new TextEncoder().encode(items[0].path).byteLength).toBe(512)
    const res = await createSite({ items })
    expect(res.status).toBe(201)
    const canvas = await json(res)
    expect(canvas.size).toBe(1000 * FILES['style.css'].text.length)
    const detail = await json(await call(`/v1/canvases/${canvas.canvas_id}`, { key: owner.key }))
    expect(detail.items).toHaveLength(1000)
    expect(detail.main).toBe(items[0].path)
  })

  it('more than MAX_SITE_ITEMS items', async () => {
    const items = Array.from({ length: 6 }, (_, i) => ({ path: `p${i}.txt`, file_id: 'x' }))
    const res = await call('/v1/canvases', {
      method: 'POST',
      key: owner.key,
      json: { title: 't', items },
      env: { MAX_SITE_ITEMS: '5' },
    })
    expect(res.status).toBe(400)
    expect(await json(res)).toEqual(
      errorOf('invalid_request', 'items: at most 5 files per version, got 6'),
    )
  })

  it('refuses generated hostile paths with a 400 naming the item, creating nothing', async () => {
    const count = () =>
      env.DB.prepare('SELECT count(*) AS n FROM canvases WHERE workspace_id = ?')
        .bind(owner.workspaceId)
        .first<{ n: number }>()
    const before = await count()
    await fc.assert(
      fc.asyncProperty(badPath, fc.nat(2), async (path, at) => {
        const items = itemsOf(ids)
        items.splice(at, 0, { path: path as string, file_id: ids['style.css'] })
        const res = await createSite({ items })
        expect(res.status).toBe(400)
        expect((await json(res)).error.message).toMatch(new RegExp(`^items\\.${at}\\.path: `))
      }),
      { numRuns: runs(200) },
    )
    expect(await count()).toEqual(before)
  })
})

describe('items stored before the rules for new paths grew', () => {
  it('are still served by path, though a new version may not hold them', async () => {
    const canvas = await json(await createSite({ items: itemsOf(ids) }))
    const id = canvas.canvas_id
    // As a version made before `:` and device names were refused would hold them.
    await env.DB.prepare(
      "UPDATE version_items SET path = 'notes:old.css' WHERE canvas_id = ? AND path = 'style.css'",
    )
      .bind(id)
      .run()
    const res = await call(`/v1/canvases/${id}/content/notes:old.css`, { key: owner.key })
    expect(res.status).toBe(302)
    expect(await (await follow(res)).text()).toBe(FILES['style.css'].text)
    const missing = await call(`/v1/canvases/${id}/content/con`, { key: owner.key })
    expect(missing.status).toBe(404)
    expect(await json(missing)).toEqual(errorOf('not_found', "path: version 1 has no file 'con'"))
  })
})

describe('archive', () => {
  it('zips every item at its path, byte for byte, streamed', async () => {
    const png = new Uint8Array(70_000).map((_, i) => (i * 31) % 256)
    const image = await upload(owner.key, png, 'png', 'image/png')
    const canvas = await json(
      await createSite({
        items: [...itemsOf(ids), { path: 'img/noise.png', file_id: image }],
        title: 'Report / Q3',
      }),
    )
    const res = await call(`/v1/canvases/${canvas.canvas_id}/versions/1/archive`, {
      key: owner.key,
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('Content-Type')).toBe('application/zip')
    expect(res.headers.get('Content-Disposition')).toMatch(
      /^attachment; filename="Report _ Q3-v1.zip"/,
    )
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()))
    expect(Object.keys(files).sort()).toEqual([
      'data/points.json',
      'img/noise.png',
      'index.html',
      'js/app.js',
      'style.css',
    ])
    for (const [path, f] of Object.entries(FILES)) expect(strFromU8(files[path])).toBe(f.text)
    expect(files['img/noise.png']).toEqual(png)
  })

  it('a missing version or another workspace’s canvas is refused', async () => {
    const canvas = await json(await createSite({ items: itemsOf(ids) }))
    const missing = await call(`/v1/canvases/${canvas.canvas_id}/versions/2/archive`, {
      key: owner.key,
    })
    expect((await json(missing)).error.code).toBe('version_not_found')
    const other = await newAccount()
    const foreign = await call(`/v1/canvases/${canvas.canvas_id}/versions/1/archive`, {
      key: other.key,
    })
    expect((await json(foreign)).error.code).toBe('canvas_not_found')
  })
})

describe('share links serve items', () => {
  it('each item download counts a view; a path the version lacks costs none', async () => {
    const canvas = await json(await createSite({ items: itemsOf(ids) }))
    const share = await json(
      await call(`/v1/canvases/${canvas.canvas_id}/shares`, {
        method: 'POST',
        key: owner.key,
        json: { max_views: 2 },
      }),
    )
    const get = (path: string) => call(`/share/${share.token}/content/${path}`)
    const missing = await get('nope.js')
    expect(missing.status).toBe(404)
    expect(await json(missing)).toEqual(
      errorOf('not_found', "path: version 1 has no file 'nope.js'"),
    )
    const css = await get('style.css')
    expect(css.status).toBe(302)
    expect(await (await follow(css)).text()).toBe(FILES['style.css'].text)
    expect((await get('js/app.js')).status).toBe(302)
    expect((await json(await get('style.css'))).error.code).toBe('share_exhausted')
  })

  it('a password-protected link asks for it before saying whether a path exists', async () => {
    const canvas = await json(await createSite({ items: itemsOf(ids) }))
    const share = await json(
      await call(`/v1/canvases/${canvas.canvas_id}/shares`, {
        method: 'POST',
        key: owner.key,
        json: { password: 'open sesame' },
      }),
    )
    const res = await call(`/share/${share.token}/content/nope.js`)
    expect((await json(res)).error.code).toBe('share_password_required')
    const ok = await call(`/share/${share.token}/content/style.css`, {
      headers: { 'X-Share-Password': 'open sesame' },
    })
    expect(ok.status).toBe(302)
  })
})

describe('the archive stream', () => {
  it('reads each file from storage only when the reader asks for more', async () => {
    const { archiveStream } = await import('../src/domain/archives/archive')
    const gets: string[] = []
    const bucket = {
      get: async (key: string) => {
        gets.push(key)
        return env.BUCKET.get(key)
      },
    } as unknown as R2Bucket
    const svc = { ...realServices(), bucket }
    const keys = await env.DB.prepare(
      'SELECT blob_key, size FROM files WHERE workspace_id = ? LIMIT 3',
    )
      .bind(owner.workspaceId)
      .all<{ blob_key: string; size: number }>()
    const entries = keys.results.map((r, i) => ({
      path: `f${i}`,
      blobKey: r.blob_key,
      size: r.size,
    }))
    expect(entries).toHaveLength(3)
    const reader = archiveStream(svc, entries, Date.now()).getReader()
    await reader.read()
    // The first file's header and bytes are out; nothing else has been fetched yet.
    expect(gets).toEqual([entries[0].blobKey])
    let chunks = 1
    while (!(await reader.read()).done) chunks++
    expect(gets).toEqual(entries.map((e) => e.blobKey))
    expect(chunks).toBeGreaterThan(3)
  })
})

describe('older versions keep their own look', () => {
  it('a version is shown and downloaded by its own main file, not the canvas’s latest', async () => {
    const canvas = await json(await createSite({ items: itemsOf(ids) }))
    const id = canvas.canvas_id
    const md = await upload(owner.key, bytesOf('# Notes'), 'md', 'text/markdown')
    const v2 = await call(`/v1/canvases/${id}`, {
      method: 'PATCH',
      key: owner.key,
      json: { items: [{ path: 'README.md', file_id: md }] },
    })
    expect(await json(v2)).toMatchObject({ version: 2, ext: 'md', renderer_id: 'markdown' })
    const v1 = await follow(await call(`/v1/canvases/${id}/versions/1`, { key: owner.key }))
    expect(v1.headers.get('Content-Type')).toBe('text/html; charset=utf-8')
    expect(v1.headers.get('Content-Disposition')).toContain('Report.html')
    const latest = await follow(await call(`/v1/canvases/${id}/content`, { key: owner.key }))
    expect(latest.headers.get('Content-Type')).toBe('text/markdown; charset=utf-8')
    const share = await json(
      await call(`/v1/canvases/${id}/shares`, {
        method: 'POST',
        key: owner.key,
        json: { version: 1 },
      }),
    )
    const meta = await json(await call(`/share/${share.token}`))
    expect(meta.canvas).toMatchObject({ ext: 'html', renderer_id: 'html', version: 1 })
  })
})

describe('a version that holds no items (written by code from before sites)', () => {
  it('gets none added by a later failed update, and its file survives the sweep', async () => {
    const canvas = await json(
      await createSite({ file_id: ids['style.css'], ext: 'css', permanent: true }),
    )
    const id = canvas.canvas_id
    await env.DB.prepare('DELETE FROM version_items WHERE canvas_id = ?').bind(id).run()
    const res = await call(`/v1/canvases/${id}`, {
      method: 'PATCH',
      key: owner.key,
      json: {
        items: [
          { path: 'evil.html', file_id: ids['index.html'] },
          { path: 'x', file_id: 'nope' },
        ],
      },
    })
    expect(res.status).toBe(404)
    const held = await env.DB.prepare('SELECT count(*) AS n FROM version_items WHERE canvas_id = ?')
      .bind(id)
      .first<{ n: number }>()
    expect(held!.n).toBe(0)
    const { sweep } = await import('../src/domain/sweep')
    const svc = realServices()
    await sweep(svc, { now: Date.now() + 48 * 3600_000 })
    const file = await env.DB.prepare('SELECT status FROM files WHERE file_id = ?')
      .bind(ids['style.css'])
      .first<{ status: string }>()
    expect(file!.status).toBe('ready')
    const bytes = await follow(await call(`/v1/canvases/${id}/content`, { key: owner.key }))
    expect(await bytes.text()).toBe(FILES['style.css'].text)
  })
})

describe('the files of a version', () => {
  it('lists them by path with main; sent back as items, they bring the version back', async () => {
    const canvas = await json(await createSite({ items: itemsOf(ids), main: 'style.css' }))
    const id = canvas.canvas_id
    await call(`/v1/canvases/${id}`, {
      method: 'PATCH',
      key: owner.key,
      json: { file_id: ids['index.html'] },
    })
    const v1 = await json(await call(`/v1/canvases/${id}/versions/1/items`, { key: owner.key }))
    expect(v1.main).toBe('style.css')
    expect(v1.items.map((i: any) => i.path)).toEqual(Object.keys(ids).sort())
    const v2 = await json(await call(`/v1/canvases/${id}/versions/2/items`, { key: owner.key }))
    expect(v2).toEqual({
      version: 2,
      main: 'index.css',
      items: [expect.objectContaining({ path: 'index.css', file_id: ids['index.html'] })],
    })
    const back = await call(`/v1/canvases/${id}`, {
      method: 'PATCH',
      key: owner.key,
      json: {
        items: v1.items.map((i: any) => ({ path: i.path, file_id: i.file_id })),
        main: v1.main,
      },
    })
    expect(await json(back)).toMatchObject({ version: 3, ext: 'css' })
    const missing = await call(`/v1/canvases/${id}/versions/9/items`, { key: owner.key })
    expect((await json(missing)).error.code).toBe('version_not_found')
  })
})
