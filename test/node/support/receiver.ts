import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

// A webhook receiver for the tests, a real HTTP server on 127.0.0.1 (run in Node: by the workers
// project's global setup, and by the Node tests). Each webhook's URL says how it answers:
//   POST /hook/<name>?answers=500,500,200   the statuses in turn, the last one from then on
//   POST /hook/<name>?answers=hang          never answers
// and GET /received/<name> tells what arrived there: each request's headers, raw body and time.
// It also answers DNS-over-HTTPS queries (the JSON API) for a few names under example.com, so
// that names resolving to private addresses can be tried without the Internet; at /dns-rebound,
// as a resolver whose every answer is private.

export type Received = { headers: Record<string, string>; body: string; at: number }

/** What the stand-in resolver answers; any other name does not exist. */
export const DNS_TABLE: Record<string, { A?: string[]; AAAA?: string[] }> = {
  'public.example.com': { A: ['93.184.215.14'] },
  'private.example.com': { A: ['10.1.2.3'] },
  'loopback.example.com': { A: ['127.0.0.1'] },
  'metadata.example.com': { A: ['169.254.169.254'] },
  'mixed.example.com': { A: ['93.184.215.14', '192.168.0.7'] },
  'ula.example.com': { AAAA: ['fd12:3456::1'] },
  'mapped.example.com': { AAAA: ['::ffff:172.16.0.1'] },
}

export type Receiver = { url: string; stop: () => Promise<void> }

export async function startReceiver(): Promise<Receiver> {
  const received = new Map<string, Received[]>()
  const sockets = new Set<Socket>()
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://receiver')
    const [, kind, name] = url.pathname.split('/')
    if (req.method === 'POST' && kind === 'hook' && name) return hook(req, res, url, name)
    if (req.method === 'GET' && kind === 'received' && name) {
      return send(res, 200, JSON.stringify(received.get(name) ?? []))
    }
    if (req.method === 'GET' && kind === 'dns-query') return dns(res, url)
    // A resolver whose every answer is a private address: a name that changed its answer.
    if (req.method === 'GET' && kind === 'dns-rebound') {
      const type = url.searchParams.get('type') === 'AAAA' ? 28 : 1
      const data = type === 1 ? '10.9.8.7' : 'fd00::7'
      return send(res, 200, JSON.stringify({ Status: 0, Answer: [{ type, data }] }))
    }
    send(res, 404, '{}')
  })

  async function hook(req: IncomingMessage, res: ServerResponse, url: URL, name: string) {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const list = received.get(name) ?? []
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
    )
    list.push({ headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() })
    received.set(name, list)
    const answers = (url.searchParams.get('answers') ?? '200').split(',')
    const answer = answers[Math.min(list.length, answers.length) - 1]
    if (answer === 'hang') return
    send(res, Number(answer), '{"ok":true}')
  }

  function dns(res: ServerResponse, url: URL) {
    const entry = DNS_TABLE[url.searchParams.get('name') ?? '']
    const type = url.searchParams.get('type') === 'AAAA' ? 'AAAA' : 'A'
    if (!entry) return send(res, 200, JSON.stringify({ Status: 3 }))
    const Answer = (entry[type] ?? []).map((data) => ({ type: type === 'A' ? 1 : 28, data }))
    send(res, 200, JSON.stringify({ Status: 0, Answer }))
  }

  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        // Requests left hanging on purpose end with the server.
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

function send(res: ServerResponse, status: number, body: string) {
  res.writeHead(status, { 'Content-Type': 'application/json' })
  res.end(body)
}
