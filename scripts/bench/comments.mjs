#!/usr/bin/env node
// Comments under load: many viewers of one share link that allows comments, a series of comments,
// and for each the time from its POST to the last viewer hearing it, and to its webhook delivery
// reaching a receiver (through the queue and its consumer, as deployed). Every viewer must hear
// every comment, once.
//   node --experimental-websocket scripts/bench/comments.mjs [--sockets 500] [--comments 20]
// The built Worker is served by Miniflare with the webhooks queue bound as wrangler.jsonc binds
// it; the receiver listens on 127.0.0.1 (WEBHOOK_ALLOW_LOCAL lets the Worker send there).
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { appOptions, buildWorker, migrate, serve } from '../lib/miniflare-service.mjs'
import { seedApp } from './seed.mjs'

const { values } = parseArgs({
  options: {
    sockets: { type: 'string', default: '500' },
    comments: { type: 'string', default: '20' },
  },
})
const SOCKETS = Number(values.sockets)
const COMMENTS = Number(values.comments)
process.env.WRANGLER_SEND_METRICS = 'false'
if (typeof WebSocket === 'undefined') throw new Error('run with node --experimental-websocket')

// When each delivery arrived, by the comment it announced.
const delivered = new Map()
const receiver = createServer((req, res) => {
  let body = ''
  req.on('data', (chunk) => (body += chunk))
  req.on('end', () => {
    const at = performance.now()
    const event = JSON.parse(body)
    delivered.set(event.data.comment.comment_id, at)
    res.writeHead(204).end()
  })
})
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve))
const receiverUrl = `http://127.0.0.1:${receiver.address().port}/hook`

const work = mkdtempSync(join(tmpdir(), 'canvas-comments-bench-'))
const bundle = buildWorker(join(work, 'worker'))
const options = appOptions(work, bundle.path, {
  WEBHOOK_ALLOW_LOCAL: '1',
  WEBHOOK_ENCRYPTION_KEY: 'bench-webhook-encryption-key-0123456789abcdef',
})
const app = await serve({
  ...options,
  queueProducers: { WEBHOOKS: { queueName: 'canvas-webhooks' } },
  queueConsumers: { 'canvas-webhooks': { maxBatchSize: 5, maxBatchTimeout: 1, maxRetries: 10 } },
})
const sockets = []
try {
  await migrate(app.mf)
  const { key, canvasId } = await seedApp(app.url)
  const api = async (method, path, body) => {
    const res = await fetch(`${app.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    })
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
    return res.json()
  }
  const share = await api('POST', `/v1/canvases/${canvasId}/shares`, { allow_comments: true })
  await api('POST', '/v1/webhooks', { url: receiverUrl, events: ['comment.created'] })
  const page = await (await fetch(`${app.url}/s/${share.token}`)).text()
  const link = /data-live="([^"]+)"/.exec(page)[1].replaceAll('&amp;', '&')
  // Each socket keeps when it heard each comment, and how often.
  for (let i = 0; i < SOCKETS; i++) {
    const socket = new WebSocket(link.replace(/^http/, 'ws'))
    const state = { socket, heard: new Map() }
    socket.onmessage = (e) => {
      const event = JSON.parse(e.data)
      if (event.type !== 'comment') return
      const id = event.comment.comment_id
      state.heard.set(id, [...(state.heard.get(id) ?? []), performance.now()])
    }
    sockets.push(state)
  }
  await Promise.all(
    sockets.map(
      ({ socket }) =>
        new Promise((resolve, reject) => {
          socket.onopen = resolve
          socket.onerror = () => reject(new Error('a socket did not open'))
        }),
    ),
  )
  const toViewers = []
  const toWebhook = []
  for (let n = 1; n <= COMMENTS; n++) {
    const start = performance.now()
    const comment = await api('POST', `/v1/canvases/${canvasId}/comments`, {
      body: `Comment ${n}: is this *right*?`,
      anchor: { quote: { exact: 'Some text' } },
    })
    const id = comment.comment_id
    const deadline = start + 30_000
    while (
      (sockets.some((s) => !s.heard.has(id)) || !delivered.has(id)) &&
      performance.now() < deadline
    ) {
      await new Promise((r) => setTimeout(r, 2))
    }
    const late = sockets.filter((s) => !s.heard.has(id)).length
    if (late) throw new Error(`${late} sockets never heard comment ${n}`)
    if (!delivered.has(id)) throw new Error(`comment ${n} was never delivered to the webhook`)
    toViewers.push(Math.max(...sockets.map((s) => s.heard.get(id)[0])) - start)
    toWebhook.push(delivered.get(id) - start)
  }
  const twice = sockets.filter((s) => [...s.heard.values()].some((at) => at.length !== 1)).length
  const at = (list, q) => {
    const sorted = [...list].sort((a, b) => a - b)
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(0)
  }
  console.log(`| From a comment's POST to | Comments | median | p90 | max |`)
  console.log(`| --- | ---: | ---: | ---: | ---: |`)
  const row = (what, list) =>
    console.log(
      `| ${what} | ${COMMENTS} | ${at(list, 0.5)} ms | ${at(list, 0.9)} ms | ${at(list, 1)} ms |`,
    )
  row(`the last of ${SOCKETS} viewers hearing it`, toViewers)
  row('its webhook delivery arriving', toWebhook)
  console.log(`\nEvery viewer heard every comment once: ${twice === 0 ? 'yes' : `no (${twice})`}`)
  if (twice) process.exitCode = 1
} finally {
  for (const { socket } of sockets) socket.close()
  await app.mf.dispose()
  receiver.close()
  rmSync(work, { recursive: true, force: true })
}
