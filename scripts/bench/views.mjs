#!/usr/bin/env node
// `npm run bench:views`: 10,000 people's reads of one canvas through its share link (100 readers,
// 32 at a time) on the built Worker (Miniflare), and what counting them cost D1: the writes the
// canvas's object made (a line of the log each), the rows they wrote, and how long until every
// read was in the counts (docs/readership.md). The reads themselves write nothing for readership.
//   node scripts/bench/views.mjs [--reads 10000]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { appOptions, buildWorker, migrate, serve } from '../lib/miniflare-service.mjs'
import { seedApp } from './seed.mjs'

const reads = Number(process.argv.join(' ').match(/--reads (\d+)/)?.[1] ?? 10000)
const READERS = 100
const AT_ONCE = 32
// A read's counts reach D1 within a minute of the object holding them; a margin for a busy machine.
const DEADLINE_MS = 120_000

const work = mkdtempSync(join(tmpdir(), 'canvas-views-'))
const written = []
const built = buildWorker(join(work, 'worker'))
const app = await serve({
  ...appOptions(work, built.path),
  handleStructuredLogs: ({ message }) => {
    if (message.includes('"event":"views_written"')) written.push(JSON.parse(message))
  },
})
try {
  await migrate(app.mf)
  const { canvasId, token } = await seedApp(app.url)
  const db = await app.mf.getD1Database('DB')
  const counted = async () =>
    (
      await db
        .prepare(
          "SELECT coalesce(sum(views), 0) AS n FROM canvas_views WHERE canvas_id = ? AND kind = 'day'",
        )
        .bind(canvasId)
        .first()
    ).n

  const started = performance.now()
  let next = 0
  const reader = async () => {
    while (next < reads) {
      const n = next++
      const res = await fetch(`${app.url}/share/${token}/content`, {
        redirect: 'manual',
        headers: { 'User-Agent': `reader ${n % READERS}` },
      })
      await res.arrayBuffer()
      if (res.status !== 302) throw new Error(`read ${n}: HTTP ${res.status}`)
    }
  }
  await Promise.all(Array.from({ length: AT_ONCE }, reader))
  const readMs = performance.now() - started
  while ((await counted()) < reads && performance.now() - started < DEADLINE_MS) {
    await new Promise((r) => setTimeout(r, 250))
  }
  const allIn = performance.now() - started
  const total = await counted()
  const rows = written.reduce((n, line) => n + line.d1_rows_written, 0)
  console.log(
    [
      `${reads} reads by ${READERS} readers in ${(readMs / 1000).toFixed(1)} s; ${total} counted` +
        ` ${total === reads ? '✅' : '❌'}, all in D1 ${(allIn / 1000).toFixed(1)} s after the first read`,
      `D1: ${written.length} writes by the canvas's object, ${rows} rows written in all` +
        ` (${(rows / reads).toFixed(4)} a read); the reads themselves: none for readership`,
    ].join('\n'),
  )
  if (total !== reads) process.exitCode = 1
} finally {
  await app.mf.dispose()
  rmSync(work, { recursive: true, force: true })
}
