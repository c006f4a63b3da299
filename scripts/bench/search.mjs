#!/usr/bin/env node
// `npm run bench:search`: what a search costs as a workspace grows, on the built Worker (Miniflare,
// its own D1): GET /v1/search's latency (median and p95 of 40 requests) and D1 rows read, for a
// rare word, a common word (every canvas holds it) and a phrase, at 1,000 and 100,000 canvases of
// a workspace, each with 1 KB of text; and what indexing adds to a publish (a 4 KB Markdown file
// in one multipart request, 200 of them, median), which `--publish-only` measures alone so that
// the same script can time the commit before search side by side.
//   node scripts/bench/search.mjs [--sizes 1000,100000] [--publish-only]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startApp } from '../lib/miniflare-service.mjs'
import { createAccount, fetchRetry as fetch } from '../lib/local-service.mjs'

const argv = process.argv.join(' ')
const sizes = (argv.match(/--sizes ([\d,]+)/)?.[1] ?? '1000,100000').split(',').map(Number)
const publishOnly = argv.includes('--publish-only')
const work = mkdtempSync(join(tmpdir(), 'canvas-search-'))
const app = await startApp(work)
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]
try {
  const db = await app.mf.getD1Database('DB')
  const { key } = await createAccount(app.url, 'search@example.com')
  const auth = { Authorization: `Bearer ${key}` }
  const report = { publish_ms: await publishTimes(auth) }
  if (!publishOnly) {
    const me = await (await fetch(`${app.url}/v1/me`, { headers: auth })).json()
    const workspace = me.workspace?.workspace_id ?? me.workspace_id
    const owner = me.user?.user_id ?? me.user_id
    report.search = []
    let seeded = 0
    for (const size of sizes) {
      seeded = await seed(db, workspace, owner, seeded, size)
      for (const [label, q] of [
        ['rare word', 'zebra'],
        ['common word', 'report'],
        ['phrase', '"quarterly report"'],
      ]) {
        report.search.push({
          canvases: size,
          query: label,
          ...(await searchCost(db, auth, workspace, q)),
        })
      }
    }
  }
  console.log(JSON.stringify(report, null, 2))
} finally {
  await app.stop()
  rmSync(work, { recursive: true, force: true })
}

/** Milliseconds for each of 200 publishes of a 4 KB Markdown file: median and p95. */
async function publishTimes(auth) {
  const times = []
  for (let i = 0; i < 200; i++) {
    const form = new FormData()
    const text = `# Report ${i}\n\n${'The quarterly figures were reviewed in detail. '.repeat(85)}`
    form.append('file', new Blob([text]), `report-${i}.md`)
    const started = performance.now()
    const res = await fetch(`${app.url}/v1/canvases`, { method: 'POST', headers: auth, body: form })
    if (res.status !== 201) throw new Error(`publish: HTTP ${res.status} ${await res.text()}`)
    times.push(performance.now() - started)
  }
  return { median: round(median(times)), p95: round(p95(times)) }
}

/** Canvases up to `size`, by SQL as a version writes them: the row and its search entry. */
async function seed(db, workspace, owner, from, size) {
  const now = Date.now()
  for (let i = from; i < size; i += 500) {
    const ids = JSON.stringify(
      Array.from({ length: Math.min(500, size - i) }, (_, j) => `bench${i + j}`),
    )
    await db.batch([
      db
        .prepare(
          `INSERT INTO canvases (canvas_id, workspace_id, owner_user_id, title, ext, renderer_id,
             visibility, version, created_at, updated_at, expires_at)
           SELECT value, ?, ?, 'Quarterly report ' || value, 'md', 'markdown', 'private', 1, ?, ?,
             NULL FROM json_each(?)`,
        )
        .bind(workspace, owner, now, now, ids),
      // 1 KB of text each; one canvas in 1,000 holds the rare word.
      db
        .prepare(
          `INSERT INTO canvas_texts (canvas_id, workspace_id, title, body)
           SELECT value, ?, 'Quarterly report ' || value,
             'The quarterly report for ' || value || '. ' ||
             CASE WHEN CAST(substr(value, 6) AS INTEGER) % 1000 = 7 THEN 'A zebra appears. ' ELSE '' END ||
             replace(hex(zeroblob(60)), '00', 'Sales rose, costs fell. ')
           FROM json_each(?)`,
        )
        .bind(workspace, ids),
    ])
  }
  return size
}

/**
 * A search's latency through the API (40 requests: median, p95) and its rows read, by the
 * statement the API runs (src/domain/search/search.ts) sent to D1 as it is, for D1's own count.
 */
async function searchCost(db, auth, workspace, q) {
  const times = []
  let found = 0
  for (let i = 0; i < 40; i++) {
    const started = performance.now()
    const res = await fetch(`${app.url}/v1/search?q=${encodeURIComponent(q)}&limit=20`, {
      headers: auth,
    })
    const body = await res.json()
    times.push(performance.now() - started)
    found = body.results.length
  }
  const match = `workspace_id : "${workspace}" AND {title body} : (${q.startsWith('"') ? q : `"${q}"`})`
  const { meta } = await db
    .prepare(
      `SELECT c.canvas_id, c.title, m.snippet FROM (
         SELECT canvas_id AS id, snippet(canvas_search, 2, char(2), char(3), '…', 24) AS snippet,
           rank FROM canvas_search WHERE canvas_search MATCH ? ORDER BY rank LIMIT 21 OFFSET 0
       ) AS m LEFT JOIN canvases c ON c.canvas_id = m.id ORDER BY m.rank`,
    )
    .bind(match)
    .all()
  return {
    results: found,
    median_ms: round(median(times)),
    p95_ms: round(p95(times)),
    rows_read: meta.rows_read,
  }
}

function round(ms) {
  return Math.round(ms * 10) / 10
}
