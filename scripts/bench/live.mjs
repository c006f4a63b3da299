#!/usr/bin/env node
// Live canvases under load: many sockets on one public canvas, a series of new versions, and the
// time from each write to its last delivery. Every socket must hear each version once, in order.
//   node --experimental-websocket scripts/bench/live.mjs [--sockets 500] [--versions 20]
// (Node 20 has WebSocket behind that flag.) The built Worker is served by Miniflare, as the other
// benchmarks are; the sockets and the writes come from this process.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { startApp } from '../lib/miniflare-service.mjs'
import { seedApp } from './seed.mjs'

const { values } = parseArgs({
  options: {
    sockets: { type: 'string', default: '500' },
    versions: { type: 'string', default: '20' },
  },
})
const SOCKETS = Number(values.sockets)
const VERSIONS = Number(values.versions)
process.env.WRANGLER_SEND_METRICS = 'false'
if (typeof WebSocket === 'undefined') throw new Error('run with node --experimental-websocket')

const work = mkdtempSync(join(tmpdir(), 'canvas-live-bench-'))
const app = await startApp(work)
const sockets = []
try {
  const { key, publicId } = await seedApp(app.url)
  const page = await (await fetch(`${app.url}/c/${publicId}`)).text()
  const link = /data-live="([^"]+)"/.exec(page)[1].replaceAll('&amp;', '&')
  // Each socket keeps the versions it heard and when it heard the latest.
  for (let i = 0; i < SOCKETS; i++) {
    const socket = new WebSocket(link.replace(/^http/, 'ws'))
    const state = { socket, heard: [], at: new Map() }
    socket.onmessage = (e) => {
      const event = JSON.parse(e.data)
      if (event.type !== 'version') return
      state.heard.push(event.version)
      state.at.set(event.version, performance.now())
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
  const delays = []
  for (let version = 2; version <= VERSIONS + 1; version++) {
    const form = new FormData()
    form.append('file', new Blob([`# Public\n\nVersion ${version}.`]), 'public.md')
    const start = performance.now()
    const res = await fetch(`${app.url}/v1/canvases/${publicId}`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${key}` },
      body: form,
    })
    if (res.status !== 200) throw new Error(`write failed: ${res.status} ${await res.text()}`)
    const deadline = start + 10_000
    while (sockets.some((s) => !s.at.has(version)) && performance.now() < deadline) {
      await new Promise((r) => setTimeout(r, 2))
    }
    const late = sockets.filter((s) => !s.at.has(version)).length
    if (late) throw new Error(`${late} sockets never heard version ${version}`)
    delays.push(Math.max(...sockets.map((s) => s.at.get(version))) - start)
  }
  const expected = Array.from({ length: VERSIONS + 1 }, (_, i) => i + 1)
  const wrong = sockets.filter((s) => s.heard.join() !== expected.join()).length
  const sorted = [...delays].sort((a, b) => a - b)
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(0)
  console.log(
    `| Sockets | Versions | Each heard once, in order | Write to last delivery: median | p90 | max |`,
  )
  console.log(`| --- | --- | --- | --- | --- | --- |`)
  console.log(
    `| ${SOCKETS} | ${VERSIONS} | ${wrong === 0 ? 'yes' : `no (${wrong} wrong)`} | ${at(0.5)} ms | ${at(0.9)} ms | ${at(1)} ms |`,
  )
  if (wrong) process.exitCode = 1
} finally {
  for (const { socket } of sockets) socket.close()
  await app.stop()
  rmSync(work, { recursive: true, force: true })
}
