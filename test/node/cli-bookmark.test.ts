import { createServer, type Server } from 'node:http'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { svc } from './support/cli'
import { freePort } from './support/dev-server'

// Read replicas: the CLI sends back the newest database bookmark the service gave it, within a
// command and to the next command, and never what is not a bookmark.

let server: Server
let url: string
let answered = 0
const sent: (string | undefined)[] = []
const home = mkdtempSync(join(tmpdir(), 'canvas-bookmark-'))
const KEY = 'svc_' + 'b'.repeat(40)
const bookmark = (n: number) =>
  `00000000-${n.toString(16).padStart(8, '0')}-00000000-${'0'.repeat(32)}`

beforeAll(async () => {
  server = createServer((req, res) => {
    sent.push(req.headers['x-d1-bookmark'] as string | undefined)
    answered++
    // The fourth answer carries something that is not a bookmark: it must not be sent back.
    const given = answered === 4 ? 'garbage\u0000' : bookmark(answered)
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'x-d1-bookmark': given.replace('\u0000', ''),
    })
    res.end(JSON.stringify({ canvases: [], limit: 20, offset: 0, next_cursor: null }))
  })
  const port = await freePort()
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${port}`
})

afterAll(() => {
  server?.close()
  rmSync(home, { recursive: true, force: true })
})

it('sends back the newest bookmark, to the next command too, and nothing that is not one', async () => {
  const env = { CANVAS_API_KEY: KEY, CANVAS_ENDPOINT: url }
  for (let i = 0; i < 4; i++) expect((await svc(home, ['list'], env)).code).toBe(0)
  // First command: none yet. Each next command sends what the one before it was given.
  expect(sent).toEqual([undefined, bookmark(1), bookmark(2), bookmark(3)])
  expect((await svc(home, ['list'], env)).code).toBe(0)
  // The fourth answer's 'garbage' was dropped: the third's bookmark is still the newest.
  expect(sent[4]).toBe(bookmark(3))
  const stored = JSON.parse(readFileSync(join(home, '.svc', 'bookmarks.json'), 'utf8'))
  expect(stored[url].bookmark).toBe(bookmark(5))
})
