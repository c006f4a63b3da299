import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DRAW } from '../../src/web/asset-urls'
import { sharedDevServer, SETUP_MS } from './support/dev-server'

// The browser code under assets/: built into static assets named by a hash of their bytes, and
// served by the asset layer ahead of the Worker, as a deployment serves them.

const BUILD = fileURLToPath(new URL('../../scripts/build-assets.mjs', import.meta.url))
const IMMUTABLE = 'public, max-age=31536000, immutable'

describe('the build', () => {
  const work = mkdtempSync(join(tmpdir(), 'canvas-assets-'))
  const source = join(work, 'source')
  const out = join(work, 'public')
  const urls = join(work, 'asset-urls.js')
  afterAll(() => rmSync(work, { recursive: true, force: true }))

  /** Builds `script` and `style` as the app's sources; the URLs the Worker would be told. */
  function build(script: string, style: string) {
    mkdirSync(source, { recursive: true })
    writeFileSync(join(source, 'app.ts'), script)
    writeFileSync(join(source, 'app.css'), style)
    const run = spawnSync(
      process.execPath,
      [BUILD, '--source', source, '--out', out, '--urls', urls],
      { encoding: 'utf8' },
    )
    expect(run.status, run.stderr).toBe(0)
    const module = readFileSync(urls, 'utf8')
    const js = /export const APP_JS = '([^']+)'/.exec(module)![1]
    const css = /export const APP_CSS = '([^']+)'/.exec(module)![1]
    return { js, css, file: (url: string) => readFileSync(join(out, url)) }
  }
  const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex').slice(0, 16)

  it('names each file by a hash of its bytes: new bytes, new name; the same bytes, the same', () => {
    const style = 'main { color: red }\n'
    const first = build("const word: string = 'one'\nconsole.log(word)\n", style)
    expect(first.js).toMatch(/^\/assets\/app\.[0-9a-f]{16}\.js$/)
    expect(first.css).toMatch(/^\/assets\/app\.[0-9a-f]{16}\.css$/)
    expect(first.js).toBe(`/assets/app.${sha(first.file(first.js))}.js`)
    expect(first.css).toBe(`/assets/app.${sha(first.file(first.css))}.css`)
    // Bundled for the browser: the types are gone, the code kept.
    expect(first.file(first.js).toString()).toContain('console.log("one")')

    const second = build("const word: string = 'two'\nconsole.log(word)\n", style)
    expect(second.js).not.toBe(first.js)
    expect(second.css).toBe(first.css)
    // The earlier script is gone (a deploy uploads what is there); the old names hold the new bytes.
    expect(existsSync(join(out, first.js))).toBe(false)
    expect(second.file('/assets/app.js')).toEqual(second.file(second.js))
    expect(second.file('/assets/app.css')).toEqual(second.file(second.css))

    // A comment is not a change: the bytes built are the same.
    const again = build("// why\nconst word: string = 'two'\nconsole.log(word)\n", style)
    expect(again.js).toBe(second.js)
  })

  it('writes one header rule per file: immutable for the hashed names only', () => {
    const { js, css } = build('console.log(1)\n', 'p { margin: 0 }\n')
    const rules = readFileSync(join(out, '_headers'), 'utf8')
    const rule = (url: string) => new RegExp(`^${url.replaceAll('.', '\\.')}\\n((?:  .+\\n)+)`, 'm')
    for (const url of [js, css]) {
      expect(rule(url).exec(rules)![1]).toBe(
        `  Cache-Control: ${IMMUTABLE}\n  X-Content-Type-Options: nosniff\n`,
      )
    }
    for (const url of ['/assets/app.js', '/assets/app.css']) {
      expect(rule(url).exec(rules)![1]).toBe('  X-Content-Type-Options: nosniff\n')
    }
  })
})

describe('served by wrangler dev', () => {
  let server: { url: string }
  beforeAll(async () => {
    server = await sharedDevServer()
  }, SETUP_MS)

  const get = async (path: string) => {
    const res = await fetch(server.url + path)
    return { res, bytes: Buffer.from(await res.arrayBuffer()) }
  }

  it('a page names hashed files, each served immutable, typed and never sniffed', async () => {
    const page = (await get('/signup')).bytes.toString()
    const css = /<link rel="stylesheet" href="(\/assets\/app\.[0-9a-f]{16}\.css)"/.exec(page)![1]
    const js = /<script src="(\/assets\/app\.[0-9a-f]{16}\.js)" defer/.exec(page)![1]
    for (const [url, type] of [
      [js, 'text/javascript; charset=utf-8'],
      [css, 'text/css; charset=utf-8'],
    ]) {
      const { res, bytes } = await get(url)
      expect(res.status, url).toBe(200)
      expect(res.headers.get('Content-Type'), url).toBe(type)
      expect(res.headers.get('Cache-Control'), url).toBe(IMMUTABLE)
      expect(res.headers.get('X-Content-Type-Options'), url).toBe('nosniff')
      expect(url).toContain(createHash('sha256').update(bytes).digest('hex').slice(0, 16))

      // The old name, for a page rendered before: the same bytes, checked again at every use.
      const old = url.replace(/\.[0-9a-f]{16}\./, '.')
      const alias = await get(old)
      expect(alias.res.status, old).toBe(200)
      expect(alias.res.headers.get('Content-Type'), old).toBe(type)
      expect(alias.res.headers.get('Cache-Control'), old).toBe('public, max-age=0, must-revalidate')
      expect(alias.res.headers.get('X-Content-Type-Options'), old).toBe('nosniff')
      expect(alias.bytes).toEqual(bytes)
    }
  })

  it('the drawing libraries: immutable, typed, open to the sandboxed frames that load them', async () => {
    for (const [url, type] of [
      [DRAW.mermaid, 'text/javascript; charset=utf-8'],
      [DRAW.math, 'text/javascript; charset=utf-8'],
      [DRAW.vega, 'text/javascript; charset=utf-8'],
      [DRAW.mathCss, 'text/css; charset=utf-8'],
    ]) {
      const { res } = await get(url)
      expect(res.status, url).toBe(200)
      expect(res.headers.get('Content-Type'), url).toBe(type)
      expect(res.headers.get('Cache-Control'), url).toBe(IMMUTABLE)
      expect(res.headers.get('X-Content-Type-Options'), url).toBe('nosniff')
      // A module script of an opaque origin (a sandboxed frame) is fetched with CORS.
      expect(res.headers.get('Access-Control-Allow-Origin'), url).toBe('*')
    }
    // Its build's own record is not served.
    expect((await get('/assets/draw/manifest.json')).res.status).toBe(404)
  })

  it('any other path is the Worker’s: an unknown hash is its 404 page', async () => {
    for (const path of ['/assets/app.0123456789abcdef.js', '/_headers', '/.assetsignore']) {
      const { res } = await get(path)
      expect(res.status, path).toBe(404)
      expect(res.headers.get('Content-Type'), path).toMatch(/^text\/html/)
      expect(res.headers.get('Content-Security-Policy'), path).toContain("script-src 'self'")
    }
  })
})
