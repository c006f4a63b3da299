import { randomBytes } from 'node:crypto'
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { unzipSync } from 'fflate'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatSize } from '../../src/lib/format'
import { svc, watchPush } from './support/cli'
import { newDevAccount, sharedDevServer, SETUP_MS } from './support/dev-server'

// `svc push <folder>` and `svc pull` of a site: the built dist/svc.mjs against a real `wrangler dev`.

let server: { url: string }
let key: string
let work: string

beforeAll(async () => {
  server = await sharedDevServer()
  key = (await newDevAccount(server.url, 'sites@example.com')).key
  work = mkdtempSync(join(tmpdir(), 'canvas-sites-'))
}, SETUP_MS)

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true })
})

const env = () => ({ CANVAS_API_KEY: key, CANVAS_ENDPOINT: server.url })
/** svc with a HOME of its own, so that its log holds this run's requests only. */
async function run(args: string[], cwd?: string) {
  const home = mkdtempSync(join(work, 'home-'))
  const res = await svc(home, args, env(), cwd)
  const log = readFileSync(join(home, '.svc/cli.log'), 'utf8')
  const requests = [...log.matchAll(/\[INFO\] (GET|POST|PUT|PATCH) (\S+) \{"status"/g)].map(
    (m) => `${m[1]} ${m[2].startsWith('/_storage/') ? '/_storage/…' : m[2]}`,
  )
  return { ...res, requests }
}
async function json(args: string[]) {
  const res = await run([...args, '--json'])
  expect(res.code, res.stderr).toBe(0)
  return { ...JSON.parse(res.stdout), stderr: res.stderr, requests: res.requests }
}
async function getCanvas(id: string) {
  const res = await fetch(`${server.url}/v1/canvases/${id}`, {
    headers: { Authorization: `Bearer ${key}` },
  })
  return (await res.json()) as any
}
function folder(files: Record<string, string | Buffer>): string {
  const root = mkdtempSync(join(work, 'site-'))
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  return root
}
/** Every file under `root`, by relative path, with its bytes. */
function contents(root: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const full = join(entry.parentPath, entry.name)
    out[relative(root, full)] = readFileSync(full).toString('base64')
  }
  return out
}

const SITE = {
  'index.html': '<link rel="stylesheet" href="css/site.css"><script src="js/app.js"></script>',
  'css/site.css': 'body { color: teal }',
  'js/app.js': 'fetch("data/points.json")',
  'data/points.json': '[1, 2, 3]',
  'img/logo.png': randomBytes(20_000),
  'docs/guide/deep/page.md': '# Deep',
}

describe('push a folder, pull it back', () => {
  it('publishes nested files as one site; pull and --zip give them back byte for byte', async () => {
    const root = folder({ ...SITE, '.env': 'TOKEN=secret', '.git/HEAD': 'ref: main' })
    symlinkSync('/etc/hostname', join(root, 'escape'))
    const pushed = await json(['push', root])
    const id = pushed.canvas_id
    expect(pushed).toMatchObject({ version: 1, ext: 'html', renderer_id: 'html' })
    expect(pushed.title).toBe(relative(work, root))
    expect(pushed.upload).toEqual({
      files: 6,
      uploaded: 6,
      already_there: 0,
      uploaded_bytes: Object.values(SITE).reduce((n, c) => n + Buffer.byteLength(c), 0),
    })
    expect(pushed.stderr).toBe(
      "left out '.env', '.git' (hidden or node_modules; --all includes them); " +
        "'escape' (links to a folder, to nothing or out of the folder)\n",
    )
    const canvas = await getCanvas(id)
    expect(canvas.main).toBe('index.html')
    expect(canvas.items.map((i: any) => i.path)).toEqual(Object.keys(SITE).sort())

    const out = join(work, `pulled-${id}`)
    const pulled = await json(['pull', id, '-o', out])
    expect(pulled).toMatchObject({ canvas_id: id, version: 1, path: out, files: 6 })
    const { ['.env']: _env, ['.git/HEAD']: _git, ...expected } = contents(root)
    expect(contents(out)).toEqual(expected)
    // One GET of the canvas, one of its archive: not two requests a file.
    expect(pulled.requests).toEqual([
      `GET /v1/canvases/${id}`,
      `GET /v1/canvases/${id}/versions/1/archive`,
    ])
    const again = await run(['pull', id, '-o', out])
    expect(again.code).toBe(1)
    expect(again.stderr).toBe(
      `error: ${join(out, 'css/site.css')} exists; pass --force to overwrite it (file_exists)\n`,
    )
    expect(again.requests).toEqual([`GET /v1/canvases/${id}`])
    // What was written is said on stderr, never among the content.
    const bytes = Object.values(expected).reduce(
      (sum, b) => sum + Buffer.from(b, 'base64').length,
      0,
    )
    expect(await run(['pull', id, '-o', out, '--force'])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: `wrote 6 files (${formatSize(bytes)}, version 1) to ${out}\n`,
    })

    const cwd = mkdtempSync(join(work, 'zip-'))
    const zipped = await run(['pull', id, '--zip'], cwd)
    const name = `${pushed.title}-v1.zip`
    const size = formatSize(statSync(join(cwd, name)).size)
    expect(zipped.stderr).toBe(`wrote ${name} (${size}, version 1)\n`)
    const entries = unzipSync(readFileSync(join(cwd, name)))
    expect(Object.keys(entries).sort()).toEqual(Object.keys(SITE).sort())
    for (const [path, bytes] of Object.entries(entries)) {
      expect(Buffer.from(bytes).toString('base64'), path).toBe(expected[path])
    }
  })

  it('a new version uploads only what changed; --main picks the main file, which then stays', async () => {
    const root = folder(SITE)
    const id = (await json(['push', root])).canvas_id
    writeFileSync(join(root, 'css/site.css'), 'body { color: navy }')
    const second = await json(['push', root, '--id', id])
    expect(second).toMatchObject({ canvas_id: id, version: 2 })
    expect(second.upload).toMatchObject({ files: 6, uploaded: 1, already_there: 5 })
    // Unchanged files cost no request at all: the version in place already holds them.
    expect(second.requests).toEqual([
      `GET /v1/canvases/${id}`,
      'POST /v1/upload/presign',
      'PUT /_storage/…',
      'POST /v1/upload/finalize',
      `PATCH /v1/canvases/${id}`,
    ])

    const third = await json(['push', root, '--id', id, '--main', './js/app.js'])
    expect(third).toMatchObject({ version: 3, ext: 'js', renderer_id: 'code' })
    expect(third.upload).toMatchObject({ uploaded: 0, already_there: 6 })
    expect(third.requests).toEqual([`GET /v1/canvases/${id}`, `PATCH /v1/canvases/${id}`])
    expect((await json(['push', root, '--id', id])).version).toBe(4)
    expect((await getCanvas(id)).main).toBe('js/app.js')

    // An older version, from its archive.
    const v1 = join(work, `v1-${id}`)
    expect(await json(['pull', id, '--version', '1', '-o', v1])).toMatchObject({ files: 6 })
    expect(readFileSync(join(v1, 'css/site.css'), 'utf8')).toBe('body { color: teal }')

    const missing = await run(['push', root, '--id', id, '--main', 'js/ap.js'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toBe(
      `error: --main: 'js/ap.js' is not a file in ${root}: did you mean 'js/app.js'? (usage)\n`,
    )
    expect(missing.requests).toEqual([])
  })

  it('a canvas can go from a file to a site and back; an older single file pulls as a file', async () => {
    const single = join(folder({ 'notes.md': '# one' }), 'notes.md')
    const id = (await json(['push', single])).canvas_id
    expect((await json(['push', folder(SITE), '--id', id])).version).toBe(2)
    const out = join(work, `old-${id}.md`)
    expect(await json(['pull', id, '--version', '1', '-o', out])).toEqual({
      canvas_id: id,
      version: 1,
      path: out,
      requests: expect.any(Array),
      stderr: '',
    })
    expect(readFileSync(out, 'utf8')).toBe('# one')
    const zip = join(work, `old-${id}.zip`)
    expect((await run(['pull', id, '--version', '1', '--zip', '-o', zip])).code).toBe(0)
    expect(Object.keys(unzipSync(readFileSync(zip)))).toEqual(['index.md'])

    // Rollback brings a version back whole, site or file, in two requests and no upload.
    const back = await json(['rollback', id, '2'])
    expect(back).toMatchObject({ version: 3, ext: 'html' })
    expect(back.requests).toEqual([
      `GET /v1/canvases/${id}/versions/2/items`,
      `PATCH /v1/canvases/${id}`,
    ])
    expect((await getCanvas(id)).items).toHaveLength(Object.keys(SITE).length)
    expect(await json(['rollback', id, '1'])).toMatchObject({ version: 4, ext: 'md' })
    expect((await getCanvas(id)).items).toBeUndefined()
  })

  it('refuses a folder the API would refuse before uploading anything', async () => {
    const ONE_NAME = 'are one name where case or Unicode normalization is ignored (macOS, Windows)'
    const cases: [Record<string, string>, string, Record<string, string>?][] = [
      [
        { 'index.html': 'x', 'tab\there.html': 'x' },
        "error: cannot publish 'tab\\u0009here.html': a path must not contain control characters (invalid_path)\n",
      ],
      [
        { 'index.html': 'x', 'win\\style.css': 'x' },
        "error: cannot publish 'win\\style.css': a path must separate folders with /, not \\ (invalid_path)\n",
      ],
      [
        { 'index.html': 'x', 'a\u009b31mb.txt': 'x' },
        "error: cannot publish 'a\\u009b31mb.txt': a path must not contain control characters (invalid_path)\n",
      ],
      [
        { 'index.html': 'x', 'invoice\u202etxt.exe': 'x' },
        "error: cannot publish 'invoice\\u202etxt.exe': a path must not contain bidirectional controls (invalid_path)\n",
      ],
      [
        { 'index.html': 'x', 'logs/con.txt': 'x' },
        "error: cannot publish 'logs/con.txt': a path must not have a segment named as a Windows device (con, prn, aux, nul, com1, lpt1...) (invalid_path)\n",
      ],
      [
        { 'index.html': 'x', 'a.html:evil': 'x' },
        "error: cannot publish 'a.html:evil': a path must not contain : (a drive or a stream on Windows) (invalid_path)\n",
      ],
      [
        { 'A.html': 'x', 'a.html': 'y' },
        `error: cannot publish these files: 'a.html' and 'A.html' ${ONE_NAME} (invalid_path)\n`,
      ],
      [
        { 'e\u0301.html': 'x', '\u00e9.html': 'y' },
        `error: cannot publish these files: '\u00e9.html' and 'e\u0301.html' ${ONE_NAME} (invalid_path)\n`,
      ],
      [
        { A: 'x', 'a/b': 'y' },
        `error: cannot publish these files: 'A' and a folder of 'a/b' ${ONE_NAME} (invalid_path)\n`,
      ],
      [
        { 'a.html': 'x', 'b.html': 'x', 'c/d.html': 'x' },
        'error: too many files: a site holds at most 2, and this folder has more (too_many_files)\n',
        { CANVAS_MAX_SITE_ITEMS: '2' },
      ],
    ]
    for (const [files, message, extra] of cases) {
      const home = mkdtempSync(join(work, 'home-'))
      const res = await svc(home, ['push', folder(files)], { ...env(), ...extra })
      expect(res).toMatchObject({ code: 1, stdout: '', stderr: message })
      expect(readFileSync(join(home, '.svc/cli.log'), 'utf8')).not.toMatch(/\[INFO\] (POST|PUT)/)
    }
  })
})

describe('push a folder --watch', () => {
  it('makes a new version when a file changes or appears, none when nothing did', async () => {
    const root = folder({ 'index.html': '<p>one', 'css/a.css': 'a{}' })
    const { child, lines, until, stderr } = watchPush(root, {
      HOME: mkdtempSync(join(work, 'home-')),
      ...env(),
    })
    try {
      await until(() => lines.length === 1 && stderr().includes('watching'), 'the first push')
      writeFileSync(join(root, 'css/a.css'), 'a{color:red}')
      await until(() => lines.length === 2, 'version 2')
      expect(lines[1].upload).toMatchObject({ files: 2, uploaded: 1 })
      // The same bytes again, and a hidden file: no version.
      writeFileSync(join(root, 'index.html'), '<p>one')
      writeFileSync(join(root, '.notes'), 'private')
      const seen = () => stderr().split('no change in its content').length - 1
      await until(() => seen() === 1, 'the unchanged save')
      expect(lines).toHaveLength(2)
      // A file in a folder made after the watch began (the new folder is a change seen, and
      // watched from then on).
      mkdirSync(join(root, 'js/lib'), { recursive: true })
      await until(() => seen() === 2, 'the new folder seen')
      writeFileSync(join(root, 'js/lib/app.js'), 'go()')
      await until(() => lines.length === 3, 'version 3')
      expect(lines.map((l) => [l.canvas_id, l.version])).toEqual([
        [lines[0].canvas_id, 1],
        [lines[0].canvas_id, 2],
        [lines[0].canvas_id, 3],
      ])
      expect(lines[2].upload).toMatchObject({ files: 3, uploaded: 1, already_there: 2 })
      const exited = new Promise((resolve) => child.on('close', resolve))
      child.kill('SIGINT')
      expect(await exited).toBe(0)
      const items = (await getCanvas(lines[0].canvas_id)).items.map((i: any) => i.path)
      expect(items).toEqual(['css/a.css', 'index.html', 'js/lib/app.js'])
    } finally {
      child.kill('SIGKILL')
    }
  })
})
