import { beforeAll, describe, expect, it } from 'vitest'
import { bytesOf, call, json, newAccount, upload, type Account } from './support/api'
import { freshAddress, withinOneWindow } from './support/limit-window'

// A site in the viewer: its frame is served by path below a signed token, so relative URLs work,
// each file checked against the access the page was issued under (docs/sites.md).

let owner: Account

async function newSite(
  files: Record<string, [string | Uint8Array, string, string]>,
  main?: string,
) {
  const items = []
  for (const [path, [content, ext, mime]] of Object.entries(files)) {
    const bytes = typeof content === 'string' ? bytesOf(content) : content
    items.push({ path, file_id: await upload(owner.key, bytes, ext, mime) })
  }
  const res = await call('/v1/canvases', {
    method: 'POST',
    key: owner.key,
    json: { title: 'Site', items, main, permanent: true },
  })
  expect(res.status).toBe(201)
  return (await json(res)).canvas_id as string
}

/** The frame a page embeds, followed to where the site's main file is served. */
async function siteFrame(page: string, cookie?: string) {
  const html = await (await call(page, { cookie })).text()
  const src = /<iframe src="([^"]+)"/.exec(html)![1].replace(/&amp;/g, '&')
  const res = await call(src)
  expect(res.status).toBe(302)
  return new URL(res.headers.get('Location')!, src).href
}

const SITE: Record<string, [string, string, string]> = {
  'index.html': ['<h1>Report</h1><script src="js/app.js"></script>', 'html', 'text/html'],
  'style.css': ['h1 { color: teal }', 'css', 'text/css'],
  'js/app.js': ['fetch("../data/points.json")', 'js', 'text/javascript'],
  'data/points.json': ['[1,2,3]', 'json', 'application/json'],
  'docs/index.html': ['<p>docs</p>', 'html', 'text/html'],
}

beforeAll(async () => {
  owner = await newAccount()
})

describe('a site in its frame', () => {
  it('serves the main file and every relative URL from the one signed base', async () => {
    const id = await newSite(SITE)
    const main = await siteFrame(`/c/${id}`, owner.cookie)
    expect(main).toMatch(new RegExp(`/_frame/${id}/1/site/[A-Za-z0-9_-]+/index\\.html$`))
    const page = await call(main)
    expect(page.status).toBe(200)
    expect(page.headers.get('Content-Type')).toBe('text/html; charset=utf-8')
    const csp = page.headers.get('Content-Security-Policy')!
    expect(csp).toMatch(/^sandbox allow-scripts /)
    expect(csp).not.toContain('allow-same-origin')
    expect(csp).toContain('frame-ancestors http://canvas.test')
    expect(await page.text()).toContain('<h1>Report</h1>')

    const script = new URL('js/app.js', main).href
    const js = await call(script)
    expect(js.headers.get('Content-Type')).toBe('text/javascript; charset=utf-8')
    const data = await call(new URL('../data/points.json', script).href)
    expect(data.status).toBe(200)
    expect(data.headers.get('Content-Type')).toBe('application/json')
    // The site's scripts run in an opaque origin: reading its own files is a CORS request.
    expect(data.headers.get('Access-Control-Allow-Origin')).toBe('*')
    expect(await data.text()).toBe('[1,2,3]')
    expect(await (await call(new URL('style.css', main).href)).text()).toBe(SITE['style.css'][0])
    // A folder is its index.html; the site's own address is its main file.
    expect(await (await call(new URL('docs/', main).href)).text()).toBe('<p>docs</p>')
    const root = await call(new URL('./', main).href)
    expect(await root.text()).toContain('<h1>Report</h1>')
  })

  it("a site's own address opens its main file, wherever that is", async () => {
    const id = await newSite(
      {
        'report.html': ['<h1>Quarter</h1>', 'html', 'text/html'],
        'notes/a.html': ['<p>a</p>', 'html', 'text/html'],
      },
      'report.html',
    )
    const main = await siteFrame(`/c/${id}`, owner.cookie)
    const root = await call(new URL('./', main).href)
    expect(root.status).toBe(302)
    expect(new URL(root.headers.get('Location')!, main).href).toBe(main)
    expect(await (await call(main)).text()).toContain('<h1>Quarter</h1>')
  })

  it('a path the version lacks is a 404 page inside the frame', async () => {
    const id = await newSite(SITE)
    const main = await siteFrame(`/c/${id}`, owner.cookie)
    const res = await call(new URL('img/missing.png', main).href)
    expect(res.status).toBe(404)
    expect(res.headers.get('Content-Security-Policy')).toMatch(/^sandbox /)
    expect(await res.text()).toContain('This version has no file <code>img/missing.png</code>')
    // Climbing above the site's base leaves the token behind: nothing is served from there.
    expect((await call(new URL('../../x.css', main).href)).status).toBe(404)
  })

  it('serves ranges of a file, as a video element asks', async () => {
    const bytes = new Uint8Array(1000).map((_, i) => i % 256)
    const id = await newSite({ ...SITE, 'media/clip.mp4': [bytes as never, 'mp4', 'video/mp4'] })
    const main = await siteFrame(`/c/${id}`, owner.cookie)
    const res = await call(new URL('media/clip.mp4', main).href, {
      headers: { Range: 'bytes=10-19' },
    })
    expect(res.status).toBe(206)
    expect(res.headers.get('Content-Range')).toBe('bytes 10-19/1000')
    expect([...new Uint8Array(await res.arrayBuffer())]).toEqual([...bytes.slice(10, 20)])
    const past = await call(new URL('media/clip.mp4', main).href, {
      headers: { Range: 'bytes=5000-' },
    })
    expect(past.status).toBe(416)
  })

  it('a Markdown main is rendered, its relative images served from the site', async () => {
    const png = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10])
    const id = await newSite({
      'README.md': ['# Notes\n\n![chart](img/chart.png)', 'md', 'text/markdown'],
      'img/chart.png': [png as never, 'png', 'image/png'],
    })
    const main = await siteFrame(`/c/${id}`, owner.cookie)
    expect(main).toMatch(/\/README\.md$/)
    const html = await (await call(main)).text()
    expect(html).toContain('<h1')
    expect(html).toContain('src="img/chart.png"')
    const image = await call(new URL('img/chart.png', main).href)
    expect(image.headers.get('Content-Type')).toBe('image/png')
  })

  it('the signature holds for its canvas and version only, and cannot be forged', async () => {
    const id = await newSite(SITE)
    const other = await newSite(SITE)
    const main = await siteFrame(`/c/${id}`, owner.cookie)
    expect((await call(main.replace(`/${id}/`, `/${other}/`))).status).toBe(403)
    expect((await call(main.replace(`/${id}/1/`, `/${id}/2/`))).status).toBe(403)
    const forged = main.replace(/site\/([A-Za-z0-9_-]+)\//, (_, t: string) => {
      const query = new URLSearchParams(atob(t.replace(/-/g, '+').replace(/_/g, '/')))
      query.set('exp', String(Number(query.get('exp')) + 3600))
      return `site/${btoa(query.toString()).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}/`
    })
    expect((await call(forged)).status).toBe(403)
    expect((await call(main.replace(/site\/[^/]+\//, 'site/%00/'))).status).toBe(403)
  })

  it('ends for every file at once when the access ends', async () => {
    const id = await newSite(SITE)
    await call(`/v1/canvases/${id}`, {
      method: 'PATCH',
      key: owner.key,
      json: { visibility: 'public' },
    })
    const main = await siteFrame(`/c/${id}`)
    const share = await json(
      await call(`/v1/canvases/${id}/shares`, { method: 'POST', key: owner.key, json: {} }),
    )
    const shared = await siteFrame(`/s/${share.token}`)
    const files = ['index.html', 'js/app.js', 'data/points.json']
    for (const f of files) expect((await call(new URL(f, main).href)).status).toBe(200)
    for (const f of files) expect((await call(new URL(f, shared).href)).status).toBe(200)
    await call(`/v1/canvases/${id}`, {
      method: 'PATCH',
      key: owner.key,
      json: { visibility: 'private' },
    })
    await call(`/v1/canvases/${id}/shares/${share.token}`, { method: 'DELETE', key: owner.key })
    for (const f of files) {
      expect((await call(new URL(f, main).href)).status).toBe(404)
      expect((await call(new URL(f, shared).href)).status).toBe(404)
    }
  })
})

describe('limits and preflight', () => {
  it('a site’s files count against their own budget, not the frames’', async () => {
    const id = await newSite(SITE)
    const main = await siteFrame(`/c/${id}`, owner.cookie)
    const { env } = await import('cloudflare:test')
    const file = new URL('style.css', main).href
    const limited = { FRAME_LIMITER: env.AUTH_LIMITER_SMALL }
    // Twenty files where five frames would be refused: the site's budget is SITE_LIMITER.
    const ip = freshAddress()
    for (let i = 0; i < 20; i++) expect((await call(file, { ip, env: limited })).status).toBe(200)
    const small = { SITE_LIMITER: env.AUTH_LIMITER_SMALL }
    await withinOneWindow(async (ip) => {
      const statuses = []
      for (let i = 0; i < 6; i++) statuses.push((await call(file, { ip, env: small })).status)
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429])
    })
  })

  it('answers a preflight of the site’s own scripts, with no content', async () => {
    const id = await newSite(SITE)
    const main = await siteFrame(`/c/${id}`, owner.cookie)
    const res = await call(new URL('data/points.json', main).href, {
      method: 'OPTIONS',
      headers: { Origin: 'null', 'Access-Control-Request-Method': 'GET' },
    })
    expect(res.status).toBe(204)
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*')
    expect(await res.text()).toBe('')
  })

  it('refuses paths with C1 controls or bidirectional overrides', async () => {
    const file_id = await upload(owner.key, bytesOf('x'))
    for (const path of ['a\u0085b.txt', 'invoice\u202efdp.exe', 'a\u2066b']) {
      const res = await call('/v1/canvases', {
        method: 'POST',
        key: owner.key,
        json: { title: 't', items: [{ path, file_id }] },
      })
      expect(res.status, JSON.stringify(path)).toBe(400)
    }
  })
})

describe('a site on its web page', () => {
  it('lists the shown version’s files, each opening from the site, and downloads a zip', async () => {
    const id = await newSite(SITE)
    const page = await (await call(`/c/${id}`, { cookie: owner.cookie })).text()
    expect(page).toContain('<h2 id="files">Files</h2>')
    const links = [...page.matchAll(/<a href="([^"]+\/site\/[^"]+)" target="_blank"/g)].map((m) =>
      m[1].replace(/&amp;/g, '&'),
    )
    expect(links.map((l) => l.replace(/^.*\/site\/[^/]+\//, ''))).toEqual([
      'data/points.json',
      'docs/index.html',
      'index.html',
      'js/app.js',
      'style.css',
    ])
    expect(await (await call(links[0])).text()).toBe('[1,2,3]')
    const zip = await call(`/c/${id}/download?v=1`, { cookie: owner.cookie })
    expect(zip.status).toBe(200)
    expect(zip.headers.get('Content-Type')).toBe('application/zip')
    const { unzipSync } = await import('fflate')
    expect(Object.keys(unzipSync(new Uint8Array(await zip.arrayBuffer()))).length).toBe(5)
  })

  it('a single file lists no files', async () => {
    const id = await newSite({ 'index.html': ['<p>one</p>', 'html', 'text/html'] })
    const page = await (await call(`/c/${id}`, { cookie: owner.cookie })).text()
    expect(page).not.toContain('id="files"')
  })
})
