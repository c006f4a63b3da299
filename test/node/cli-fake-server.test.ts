import { createHash } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { Socket } from 'node:net'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { zipSync } from 'fflate'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildCli, svc } from './support/cli'
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

const limited = (res: any, seconds: number) => {
  res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': String(seconds) })
  res.end(JSON.stringify({ error: { code: 'rate_limited', message: 'too many requests' } }))
}

beforeAll(async () => {
  buildCli()
  server = createServer((req, res) => {
    const json = (body: unknown) => {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    if (req.headers.authorization === `Bearer ${SLOW_KEY}`) return limited(res, 3600)
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
    if (req.url === '/v1/canvases/climbs') return json(canvas(['index.html', '../escape.txt']))
    if (req.url === '/v1/canvases/lies') return json(canvas(['index.html', 'a.txt']))
    if (req.url === '/v1/canvases/lies/versions/2/archive') {
      return res.end(zip(['index.html', '../a.txt']))
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
    expect(res).toMatchObject({ code: 0, stderr: `wrote 2 files (8 B) to ${out}\n` })
    expect(drops).toBe(1)
    expect(readdirSync(out).sort()).toEqual(['a.txt', 'index.html'])
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
