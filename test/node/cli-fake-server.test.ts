import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { zipSync } from 'fflate'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SVC, svc } from './support/cli'
import { freePort } from './support/dev-server'

// The built CLI against a bare HTTP server playing the API, for what the real one does only under
// load (429) or would never do (a site whose paths climb out of the folder).

let server: Server
let url: string
let meCalls = 0
let drops = 0
const used = new WeakSet<Socket>()
const work = mkdtempSync(join(tmpdir(), 'canvas-fake-'))
const KEY = 'svc_' + 'k'.repeat(40)
const SLOW_KEY = 'svc_' + 's'.repeat(40)

// Every file of these sites holds the same four bytes.
const EVIL = createHash('sha256').update('evil').digest('hex')
const item = (path: string) => ({ path, file_id: 'f', sha256: EVIL, size: 4, mime: 'x/y' })
const canvas = (items: string[]) => ({
  canvas_id: 'c',
  title: 'evil',
  version: 2,
  items: items.map(item),
})
const zip = (names: string[]) =>
  Buffer.from(zipSync(Object.fromEntries(names.map((n) => [n, Buffer.from('evil')])), { level: 0 }))

// Sites whose every path is fine on Linux but not as the API's rules take them: names a terminal
// would act on, names that read as others, names Windows cannot hold, names that are one file on
// macOS or Windows.
const HOSTILE_SITES = [
  ['index.html', 'a\u009b31mb.txt'],
  ['index.html', 'invoice\u202etxt.exe'],
  ['index.html', 'con'],
  ['index.html', 'logs/LPT1.log'],
  ['index.html', 'a.html:evil'],
  ['index.html', 'docs./a.html'],
  ['A.html', 'a.html'],
  ['\u00e9.html', 'e\u0301.html'],
  ['A', 'a/b'],
]

// An archive that never ends (64 MiB, as far as any client needs to know): what it has handed to
// the connection so far, and whether the client hung up on it.
const ENDLESS_CAP = 64 * 1024 * 1024
let endlessSent = 0
function endless(res: ServerResponse) {
  res.writeHead(200, { 'Content-Type': 'application/zip' })
  const chunk = Buffer.alloc(64 * 1024, 0x41)
  endlessSent = 0
  const pump = () => {
    while (endlessSent < ENDLESS_CAP && !res.destroyed) {
      endlessSent += chunk.length
      if (!res.write(chunk)) return void res.once('drain', pump)
    }
    res.end()
  }
  pump()
}

const limited = (res: any, seconds: number) => {
  res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': String(seconds) })
  res.end(JSON.stringify({ error: { code: 'rate_limited', message: 'too many requests' } }))
}

// What a hostile server puts in every string it answers: an OSC that sets the window's title, a
// CSI that clears the screen, a C1 CSI, a bidi override and a bell.
const HOSTILE = '\u001b]0;PWNED\u001b\\\u001b[2J\u009b31m\u202eevil\u0007'
const HOSTILE_SHOWN = '\\u001b]0;PWNED\\u001b\\\\u001b[2J\\u009b31m\\u202eevil\\u0007'
const PWN_KEY = 'svc_' + 'p'.repeat(40)
const hostileCanvas = {
  canvas_id: `c${HOSTILE}`,
  owner_user_id: HOSTILE,
  author: { user_id: HOSTILE, name: HOSTILE },
  title: HOSTILE,
  ext: HOSTILE,
  renderer_id: HOSTILE,
  visibility: HOSTILE,
  version: 1,
  size: 1,
  created_at: HOSTILE,
  updated_at: HOSTILE,
  expires_at: HOSTILE,
}
const hostileShare = {
  token: `t${HOSTILE}`,
  canvas_id: HOSTILE,
  expires_at: HOSTILE,
  view_count: 0,
  max_views: 3,
  version: 2,
  has_password: true,
  created_at: HOSTILE,
}
const hostileReply = {
  reply_id: `r${HOSTILE}`,
  body: `${HOSTILE}\n${HOSTILE}`,
  author: { name: HOSTILE, kind: HOSTILE },
  created_at: HOSTILE,
}
const hostileComment = {
  comment_id: `k${HOSTILE}`,
  canvas_id: HOSTILE,
  version: 1,
  anchor: { quote: { exact: HOSTILE } },
  body: `${HOSTILE}\n${HOSTILE}`,
  author: { name: HOSTILE, kind: HOSTILE },
  status: HOSTILE,
  created_at: HOSTILE,
  resolved_at: HOSTILE,
  replies: [hostileReply],
}

/** What the hostile server answers, by method and path (without the query). */
const HOSTILE_ANSWERS: Record<string, [number, unknown]> = {
  'GET /v1/canvases/missing': [404, { error: { code: `nope${HOSTILE}`, message: HOSTILE } }],
  'GET /v1/canvases/missing/content': [
    404,
    { error: { code: `nope${HOSTILE}`, message: HOSTILE } },
  ],
  'GET /v1/canvases': [
    200,
    { canvases: [hostileCanvas], limit: 20, offset: 0, next_cursor: HOSTILE },
  ],
  'GET /v1/canvases/c/versions': [
    200,
    { versions: [{ version: 1, size: 1, sha256: HOSTILE, created_at: HOSTILE, items: 1 }] },
  ],
  'GET /v1/canvases/c/versions/1/items': [
    200,
    {
      version: 1,
      main: 'a',
      items: [{ path: 'a', file_id: 'f', sha256: 'x', size: 1, mime: 'x/y' }],
    },
  ],
  'GET /v1/canvases/c/shares': [200, { shares: [hostileShare] }],
  'GET /v1/canvases/c/comments': [200, { comments: [hostileComment] }],
  'POST /v1/canvases/c/comments': [201, hostileComment],
  'POST /v1/canvases/c/comments/k/replies': [201, hostileReply],
  'POST /v1/canvases/c/comments/k/resolve': [200, hostileComment],
  'POST /v1/canvases/c/shares': [201, hostileShare],
  'GET /v1/canvases/c': [200, hostileCanvas],
  'PATCH /v1/canvases/c': [200, hostileCanvas],
  'POST /v1/canvases/c/permanent': [200, hostileCanvas],
  'DELETE /v1/canvases/c': [400, { error: { code: 'invalid_request', message: HOSTILE } }],
  'GET /v1/me': [
    200,
    {
      user: { user_id: HOSTILE, email: HOSTILE },
      workspace: { workspace_id: HOSTILE, name: HOSTILE },
      key: { key_id: HOSTILE, name: HOSTILE, scopes: [HOSTILE] },
    },
  ],
  'GET /v1/renderers': [
    200,
    { renderers: [{ renderer_id: HOSTILE, name: HOSTILE, exts: [HOSTILE], scripts: false }] },
  ],
  'GET /share/tttttttttt': [200, { canvas: { title: HOSTILE }, share: { token: HOSTILE } }],
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const json = (body: unknown, status = 200) => {
      res.writeHead(status, { 'Content-Type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    if (req.headers.authorization === `Bearer ${SLOW_KEY}`) return limited(res, 3600)
    if (req.headers.authorization === `Bearer ${PWN_KEY}` || req.url?.startsWith('/share/')) {
      const answer = HOSTILE_ANSWERS[`${req.method} ${req.url?.split('?')[0]}`]
      return answer ? json(answer[1], answer[0]) : res.writeHead(404).end()
    }
    if (req.url === '/v1/me') {
      if (++meCalls === 1) return limited(res, 1)
      return json({ user: { email: 'a@example.com' }, workspace: { name: 'w' }, key: {} })
    }
    // The second request on a kept-alive connection finds it closed, as by an idle timeout.
    if (req.url === '/v1/canvases/dropped/versions/2/archive' && used.has(req.socket) && !drops++) {
      return req.socket.destroy()
    }
    used.add(req.socket)
    if (req.url === '/v1/canvases/dropped') return json(canvas(['index.html', 'a.txt']))
    if (req.url === '/v1/canvases/dropped/versions/2/archive') {
      return res.end(zip(['a.txt', 'index.html']))
    }
    const hostile = /^\/v1\/canvases\/hostile(\d+)(\/versions\/2\/archive)?$/.exec(req.url ?? '')
    if (hostile) {
      const paths = HOSTILE_SITES[Number(hostile[1])]
      return hostile[2] ? res.end(zip(paths)) : json(canvas(paths))
    }
    if (req.url === '/v1/canvases/endless') return json(canvas(['index.html', 'a.txt']))
    if (
      req.url === '/v1/canvases/endless/versions/2/items' ||
      req.url === '/v1/canvases/endless/versions/1/items'
    ) {
      return json({ version: 2, main: 'index.html', items: canvas(['index.html', 'a.txt']).items })
    }
    if (/^\/v1\/canvases\/endless\/versions\/[12]\/archive$/.test(req.url ?? '')) {
      return endless(res)
    }
    if (req.url === '/v1/canvases/climbs') return json(canvas(['index.html', '../escape.txt']))
    if (req.url === '/v1/canvases/lies') return json(canvas(['index.html', 'a.txt']))
    if (req.url === '/v1/canvases/lies/versions/2/archive') {
      return res.end(zip(['index.html', '../a.txt']))
    }
    if (req.url === '/v1/canvases/lies/versions/1/items') {
      return json({ version: 1, main: 'index.html', items: canvas(['index.html', 'a.txt']).items })
    }
    if (req.url === '/v1/canvases/lies/versions/1/archive') {
      return res.end(zip(['index.html', 'sub/../../escape.txt']))
    }
    res.writeHead(404).end()
  })
  const port = await freePort()
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${port}`
}, 60_000)

afterAll(() => {
  server.close()
  rmSync(work, { recursive: true, force: true })
})

const run = (args: string[], key = KEY) =>
  svc(mkdtempSync(join(work, 'home-')), args, { CANVAS_API_KEY: key, CANVAS_ENDPOINT: url })

describe('rate limits', () => {
  it('waits as long as Retry-After says, says so once, and goes on', async () => {
    const started = Date.now()
    const res = await run(['whoami', '--json'])
    expect(res.code, res.stderr).toBe(0)
    expect(res.stderr).toBe(`rate limited by ${url}: waiting 1 s, then going on\n`)
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000)
    expect(meCalls).toBe(2)
  })

  it('does not wait an hour: the error comes at once', async () => {
    const res = await run(['whoami'], SLOW_KEY)
    expect(res).toMatchObject({ code: 1, stderr: 'error: too many requests (rate_limited)\n' })
  })
})

describe('kept-alive connections', () => {
  it('a request on a connection the server has just closed is sent again', async () => {
    const out = join(mkdtempSync(join(work, 'pull-')), 'out')
    const res = await run(['pull', 'dropped', '-o', out])
    expect(res).toMatchObject({ code: 0, stderr: `wrote 2 files (8 B, version 2) to ${out}\n` })
    expect(drops).toBe(1)
    expect(readdirSync(out).sort()).toEqual(['a.txt', 'index.html'])
  })
})

describe('a server whose archive never ends', () => {
  it('is stopped once it runs past what the listed files can take, leaving nothing', async () => {
    // Two files of four bytes: the archive can take their bytes and the zip's records, no more.
    const message = (version: number) =>
      new RegExp(
        `^error: the archive of version ${version} runs past the \\d+ bytes its 2 files can take: stopped \\(the server sent more than it listed\\) \\(bad_response\\)\\n$`,
      )
    for (const [args, version] of [
      [['pull', 'endless', '-o'], 2],
      [['pull', 'endless', '--version', '1', '-o'], 1],
      [['pull', 'endless', '--zip', '-o'], 2],
    ] as const) {
      const parent = mkdtempSync(join(work, 'pull-'))
      const res = await run([...args, join(parent, 'out')])
      expect(res, args.join(' ')).toMatchObject({ code: 1, stdout: '' })
      expect(res.stderr, args.join(' ')).toMatch(message(version))
      expect(readdirSync(parent), args.join(' ')).toEqual([])
      // What the connection took before the client hung up: its buffers, not the archive.
      expect(endlessSent, args.join(' ')).toBeLessThan(ENDLESS_CAP / 4)
    }
  })
})

describe('a server whose site paths the API would refuse', () => {
  it('is refused before anything is written', async () => {
    for (const [index, paths] of HOSTILE_SITES.entries()) {
      const parent = mkdtempSync(join(work, 'pull-'))
      const res = await run(['pull', `hostile${index}`, '-o', join(parent, 'out')])
      const what = JSON.stringify(paths)
      expect(res.code, what).toBe(1)
      expect(res.stderr, what).toMatch(/^error: cannot write [^\n]+ \(invalid_path\)\n$/)
      expect(readdirSync(parent), what).toEqual([])
    }
  })
})

describe('a server whose site paths climb out of the folder', () => {
  it('is refused before anything is written, whether the list or the archive says so', async () => {
    for (const args of [
      ['pull', 'climbs', '-o'],
      ['pull', 'lies', '-o'],
      ['pull', 'lies', '--version', '1', '-o'],
    ]) {
      const parent = mkdtempSync(join(work, 'pull-'))
      const res = await run([...args, join(parent, 'out')])
      expect(res.code, args.join(' ')).toBe(1)
      expect(res.stderr, args.join(' ')).toMatch(
        /^error: cannot write '[^']+': a path must not have an empty, \. or \.\. segment \(invalid_path\)\n$/,
      )
      expect(readdirSync(parent), args.join(' ')).toEqual([])
      expect(existsSync(join(work, 'escape.txt'))).toBe(false)
    }
  })
})

describe('a server whose strings hold terminal control sequences', () => {
  // Any character a terminal acts on or that reorders text; line breaks are the CLI's own.
  const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/
  const commands = [
    ['pull', 'missing', '-o', join(work, 'never-written')],
    ['list'],
    ['versions', 'c'],
    ['shares', 'c'],
    ['share', 'c'],
    ['comments', 'c', '--status', 'all'],
    ['comment', 'c', 'hi'],
    ['comment', 'c', '--reply', 'k', 'hi'],
    ['resolve', 'c', 'k'],
    ['update', 'c', '--title', 'x'],
    ['save', 'c'],
    ['rollback', 'c', '1'],
    ['delete', 'c', '--yes'],
    ['whoami'],
    ['status'],
    ['renderers'],
    ['view', 'c'],
    ['open', 'c'],
    ['download', 'tttttttttt', '--info'],
  ]
  // Opening a page asks the server nothing: there is nothing of its to show.
  const OPENS = ['view', 'open']

  it('every command prints them made visible, never as they came', async () => {
    for (const args of commands) {
      const res = await run(args, PWN_KEY)
      const what = args.join(' ')
      expect(res.stdout + res.stderr, what).not.toMatch(UNSAFE)
      if (!OPENS.includes(args[0])) {
        expect(res.stdout + res.stderr, what).toContain('\\u001b]0;PWNED')
      }
    }
    const pulled = await run(['pull', 'missing'], PWN_KEY)
    expect(pulled).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `error: ${HOSTILE_SHOWN} (nope${HOSTILE_SHOWN})\n`,
    })
  })

  it('--json escapes them too, and parses back to what the server said', async () => {
    for (const args of commands) {
      const res = await run([...args, '--json'], PWN_KEY)
      const what = args.join(' ')
      expect(res.stdout + res.stderr, what).not.toMatch(UNSAFE)
      const body = JSON.parse(res.code === 0 ? res.stdout : res.stderr)
      if (!OPENS.includes(args[0])) {
        expect(JSON.stringify(body), what).toContain(JSON.stringify(HOSTILE))
      }
    }
    const list = await run(['list', '--json'], PWN_KEY)
    expect(JSON.parse(list.stdout).canvases[0]).toMatchObject({ ...hostileCanvas })
    expect(list.stdout).toContain('\\u009b31m\\u202eevil')
    const failed = await run(['pull', 'missing', '-o', join(work, 'never'), '--json'], PWN_KEY)
    expect(JSON.parse(failed.stderr)).toEqual({
      error: { code: `nope${HOSTILE}`, message: HOSTILE },
    })
  })

  it('the CLI’s own colours still work on a terminal', async () => {
    const home = mkdtempSync(join(work, 'home-'))
    const child = spawn('script', ['-qec', `node ${SVC} list`, '/dev/null'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        TERM: 'xterm-256color',
        CANVAS_API_KEY: PWN_KEY,
        CANVAS_ENDPOINT: url,
      },
    })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0)
    expect(out).toMatch(/^\x1b\[1mID +TITLE/)
    expect(out).toContain('\x1b[2mmore: svc list --cursor \\u001b]0;PWNED')
    expect(out.replace(/\x1b\[(1|2|22)m/g, '').replace(/\r\n/g, '\n')).not.toMatch(UNSAFE)
  })
})
