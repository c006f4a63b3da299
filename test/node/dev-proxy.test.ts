import { createHash } from 'node:crypto'
import { Agent, request } from 'node:http'
import { afterAll, beforeAll, expect, it } from 'vitest'
import {
  newDevAccount,
  ON_THIS_MACHINE,
  startDevServer,
  type DevServer,
  SETUP_MS,
} from './support/dev-server'
import { callApi } from './support/api.ts'

// `wrangler dev` answers through a proxy that hands each request to the local runtime over a
// kept-alive connection, and the runtime closes a connection left idle for 5 s. A request the proxy
// wrote onto one in the last few milliseconds before that was lost, and wrangler 4.86's proxy kept
// a lost GET or HEAD until some other request reached it: a client that sent nothing more waited
// without end. This is the sequence an outside check saw stall that way: two keys, a temporary
// canvas A with a share link, a canvas B, the usage, then, once A has expired, five reads at once.

let server: DevServer
let keys: string[]

// The moment fell a few milliseconds before the 5 s at which the runtime closes the connection
// (4974-4982 ms on these machines), and where exactly depends on the machine: the pause after the
// last answer is swept across it, in steps a little finer than the window.
const PAUSES_MS = [4966, 4970, 4974, 4978, 4982, 4986]
// Generous for a loaded machine: a read the proxy kept would wait until the next request, which
// this test sends only after giving up on it.
const ANSWER_WITHIN_MS = 20_000

beforeAll(async () => {
  server = await startDevServer(['--var', 'TEMP_CANVAS_TTL:4'])
  const account = await newDevAccount(server.url, 'proxy@example.com', undefined, ON_THIS_MACHINE)
  keys = [account.key, await account.newKey()]
}, SETUP_MS)

afterAll(async () => {
  await server?.stop()
})

async function api(key: string, path: string, json?: unknown) {
  const res = await callApi(server.url, key, path, {
    method: json === undefined ? 'GET' : 'POST',
    json,
  })
  const body = await res.json()
  expect(res.status, JSON.stringify(body)).toBeLessThan(300)
  return body as any
}

/** A temporary canvas by presign, PUT and finalize. */
async function temporaryCanvas(key: string, text: string) {
  const content = Buffer.from(text)
  const meta = {
    sha256: createHash('sha256').update(content).digest('hex'),
    ext: 'html',
    size: content.length,
    mime: 'text/html',
  }
  const presign = await api(key, '/v1/upload/presign', meta)
  const put = await fetch(presign.upload_url, {
    method: 'PUT',
    body: new Uint8Array(content),
    headers: { 'Content-Type': presign.content_type },
  })
  expect(put.status).toBe(200)
  await api(key, '/v1/upload/finalize', { ...meta, file_id: presign.file_id })
  return api(key, '/v1/canvases', { file_id: presign.file_id, title: text, ext: 'html' })
}

/**
 * GETs sent at once over one connection, as an HTTP/1.1 client with one connection per host sends
 * them (so a first one kept by the proxy keeps the others behind it, as the check saw): each one's
 * status, or 'no answer'.
 */
async function together(requests: { path: string; key?: string }[]) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const statuses: (number | string)[] = requests.map(() => 'no answer')
  const answered = requests.map(
    ({ path, key }, i) =>
      new Promise<void>((resolve) => {
        const req = request(server.url + path, {
          agent,
          headers: key ? { Authorization: `Bearer ${key}` } : {},
        })
        req.on('response', (res) => {
          res.resume()
          res.on('end', () => {
            statuses[i] = res.statusCode!
            resolve()
          })
        })
        req.on('error', (err: NodeJS.ErrnoException) => {
          statuses[i] = err.code ?? err.message
          resolve()
        })
        req.end()
      }),
  )
  let giveUp: NodeJS.Timeout | undefined
  await Promise.race([
    Promise.all(answered),
    new Promise((resolve) => (giveUp = setTimeout(resolve, ANSWER_WITHIN_MS))),
  ])
  clearTimeout(giveUp)
  agent.destroy()
  return statuses
}

const sleepUntil = (at: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, at - performance.now())))

it(
  'an expired canvas read five ways at once is answered whatever the pause before',
  async () => {
    for (const [i, pause] of PAUSES_MS.entries()) {
      const key = (n: number) => keys[(i + n) % 2]
      const a = await temporaryCanvas(key(0), `<p>A ${i}</p>`)
      const link = await api(key(1), `/v1/canvases/${a.canvas_id}/shares`, {})
      await temporaryCanvas(key(1), `<p>B ${i}</p>`)
      await api(key(0), '/v1/usage')
      const answered = performance.now()
      // The pause is the stimulus here, not a wait for a condition: the proxy's connection must
      // sit idle this long. It is never shorter than the check's wait (A expired, plus a second).
      const expiredAndASecond = answered + Date.parse(a.expires_at) + 1000 - Date.now()
      await sleepUntil(Math.max(expiredAndASecond, answered + pause))
      const statuses = await together([
        { path: `/v1/canvases/${a.canvas_id}`, key: key(0) },
        { path: `/v1/canvases/${a.canvas_id}/versions`, key: key(1) },
        { path: `/v1/canvases/${a.canvas_id}/content`, key: key(0) },
        { path: '/v1/canvases?limit=100', key: key(1) },
        { path: `/share/${link.token}/content` },
      ])
      expect(statuses, `after a pause of ${pause} ms`).toEqual([404, 404, 404, 200, 404])
    }
  },
  PAUSES_MS.length * 30_000,
)
