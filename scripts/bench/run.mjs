#!/usr/bin/env node
// `npm run bench`: the built Worker served by Miniflare's own HTTP server on 127.0.0.1 (not
// `wrangler dev`, whose proxy caps throughput), beside two baselines in the same runtime: a bare
// Hono Worker and a bare Worker doing one D1 primary-key read. Load comes from wrk in a separate
// process; each figure is the median of interleaved runs. Results go to BENCHMARKS.md.
//   node scripts/bench/run.mjs [--runs 5] [--seconds 5] [--connections 32] [--only <text>]
// --only measures just the routes whose name contains <text> (beside both baselines), prints the
// table and leaves BENCHMARKS.md alone: for trying a change quickly.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import { fetchRetry } from '../lib/local-service.mjs'
import { appOptions, buildWorker, migrate, serve } from '../lib/miniflare-service.mjs'

const root = fileURLToPath(new URL('../..', import.meta.url))
const fetch = fetchRetry
const args = Object.fromEntries(
  process.argv
    .slice(2)
    .join(' ')
    .split('--')
    .filter(Boolean)
    .map((a) => a.trim().split(/\s+/)),
)
const RUNS = Number(args.runs ?? 5)
const SECONDS = Number(args.seconds ?? 5)
const CONNECTIONS = Number(args.connections ?? 32)
const ONLY = args.only
const work = mkdtempSync(join(tmpdir(), 'canvas-bench-'))
const servers = []

ensureWrk()
try {
  const built = buildWorker(join(work, 'worker'))
  const bundle = { bytes: built.code.length, gzip: gzipSync(built.code, { level: 9 }).length }
  const sweepLines = []
  const app = await serveBench('app', {
    ...appOptions(work, built.path),
    // The sweep's JSON summary line, with its D1 cost, is read from the runtime's log.
    handleStructuredLogs: ({ message }) => {
      if (message.includes('"event":"sweep"')) sweepLines.push(JSON.parse(message))
    },
  })
  await migrate(app.mf)
  const seed = await seedData(app.url, app.mf)
  const hono = await serveBench('hono', {
    modules: true,
    script: await bundleBaseline('baseline-hono.ts'),
    compatibilityDate: '2026-04-01',
  })
  const d1 = await serveBench('d1', {
    modules: true,
    script: await bundleBaseline('baseline-d1.ts'),
    compatibilityDate: '2026-04-01',
    d1Databases: { DB: 'baseline-db' },
    d1Persist: join(work, 'd1-baseline'),
    bindings: { ID: seed.canvasId },
  })
  // Its own copy of the row, so the two runtimes never share one SQLite file.
  await migrate(d1.mf)
  const row = await (
    await app.mf.getD1Database('DB')
  )
    .prepare('SELECT * FROM canvases WHERE canvas_id = ?')
    .bind(seed.canvasId)
    .first()
  const baselineDb = await d1.mf.getD1Database('DB')
  await baselineDb
    .prepare('PRAGMA foreign_keys = OFF')
    .run()
    .catch(() => {})
  await baselineDb.batch([
    baselineDb
      .prepare("INSERT INTO users VALUES (?, 'x@example.com', 'x', 0)")
      .bind(row.owner_user_id),
    baselineDb
      .prepare("INSERT INTO workspaces VALUES (?, 'x', ?, 0)")
      .bind(row.workspace_id, row.owner_user_id),
    baselineDb
      .prepare(
        `INSERT INTO canvases (${Object.keys(row).join(', ')}) VALUES (${Object.keys(row)
          .map(() => '?')
          .join(', ')})`,
      )
      .bind(...Object.values(row)),
  ])

  const auth = ['-H', `Authorization: Bearer ${seed.key}`]
  const targets = [
    { name: 'bare Hono (baseline)', url: `${hono.url}/`, kind: 'hono' },
    { name: 'bare D1 read (baseline)', url: `${d1.url}/`, kind: 'd1' },
    { name: 'GET /health', url: `${app.url}/health`, baseline: 'hono', target: 0.9 },
    {
      name: 'GET /v1/canvases/:id',
      url: `${app.url}/v1/canvases/${seed.canvasId}`,
      headers: auth,
      baseline: 'd1',
      target: 0.8,
    },
    {
      name: 'GET /v1/canvases (20 items)',
      url: `${app.url}/v1/canvases`,
      headers: auth,
      baseline: 'd1',
    },
    {
      name: 'POST /v1/upload/presign',
      url: `${app.url}/v1/upload/presign`,
      headers: auth,
      lua: presignScript(seed),
      baseline: 'd1',
    },
    {
      name: 'GET /share/:token/content',
      url: `${app.url}/share/${seed.token}/content`,
      baseline: 'd1',
      target: 0.6,
    },
    {
      name: 'GET /c/:id (viewer page)',
      url: `${app.url}/c/${seed.publicId}`,
      baseline: 'd1',
      target: 0.6,
    },
  ]
  const measured = targets.filter((t) => !ONLY || t.kind || t.name.includes(ONLY))
  const results = new Map(measured.map((t) => [t.name, []]))
  for (const t of measured) wrk(t, 1) // warm-up
  for (let run = 0; run < RUNS; run++) {
    for (const t of measured) results.get(t.name).push(wrk(t, SECONDS))
  }
  const baselineRuns = {
    hono: results.get(measured.find((t) => t.kind === 'hono').name),
    d1: results.get(measured.find((t) => t.kind === 'd1').name),
  }
  const rows = measured.map((t) => {
    const runs = results.get(t.name)
    return {
      ...t,
      rps: median(runs.map((r) => r.rps)),
      // Each run's figure over its own baseline, measured moments apart: the machine's load
      // drifts between runs far more than between neighbours.
      ratio: t.baseline
        ? median(runs.map((r, i) => r.rps / baselineRuns[t.baseline][i].rps))
        : undefined,
      p50: median(runs.map((r) => r.p50)),
      p99: median(runs.map((r) => r.p99)),
      statusErrors: runs.reduce((n, r) => n + r.statusErrors, 0),
      socketErrors: runs.reduce((n, r) => n + r.socketErrors, 0),
    }
  })
  if (ONLY) {
    console.log(throughputTable(rows).join('\n'))
  } else {
    const scale = await scaling(app)
    const sweepResult = await sweepBench(app, sweepLines)
    writeReport(rows, bundle, scale, sweepResult)
  }
} finally {
  for (const s of servers) await s.mf.dispose().catch(() => {})
  rmSync(work, { recursive: true, force: true })
}

async function serveBench(name, options) {
  const server = await serve(options)
  servers.push({ name, mf: server.mf })
  return server
}

async function bundleBaseline(file) {
  const out = await build({
    entryPoints: [join(root, 'scripts/bench', file)],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    minify: true,
    write: false,
  })
  return out.outputFiles[0].text
}

async function seedData(url) {
  const signup = await fetch(`${url}/auth/signup`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.com', password: 'bench password' }),
  })
  const cookie = signup.headers.get('set-cookie').split(';')[0]
  const keyRes = await fetch(`${url}/auth/keys`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Cookie: cookie },
    body: JSON.stringify({ name: 'bench' }),
  })
  const { key } = await keyRes.json()
  const create = async (name, content) => {
    const form = new FormData()
    form.append('file', new Blob([content]), name)
    form.append('permanent', 'true')
    const res = await fetch(`${url}/v1/canvases`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}` },
      body: form,
    })
    return (await res.json()).canvas_id
  }
  let canvasId
  for (let i = 0; i < 20; i++) canvasId = await create(`note-${i}.md`, `# Note ${i}\n\nSome text.`)
  const publicId = await create('public.md', '# Public\n\nHello.')
  await fetch(`${url}/v1/canvases/${publicId}`, {
    method: 'PATCH',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ visibility: 'public' }),
  })
  const share = await fetch(`${url}/v1/canvases/${canvasId}/shares`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}` },
  })
  const { token } = await share.json()
  return { key, canvasId, publicId, token }
}

function presignScript(seed) {
  const path = join(work, 'presign.lua')
  const body = JSON.stringify({ sha256: 'ab'.repeat(32), ext: 'txt', size: 10, mime: 'text/plain' })
  writeFileSync(
    path,
    `wrk.method = "POST"\nwrk.body = '${body}'\nwrk.headers["Content-Type"] = "application/json"\n`,
  )
  void seed
  return path
}

/** One wrk thread is plenty at these rates, and leaves the second core to the runtime. */
function wrk(target, seconds) {
  const command = [
    '-t1',
    `-c${CONNECTIONS}`,
    `-d${seconds}s`,
    '--latency',
    ...(target.headers ?? []),
  ]
  if (target.lua) command.push('-s', target.lua)
  command.push(target.url)
  const result = spawnSync('wrk', command, { encoding: 'utf8' })
  const text = result.stdout
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? 0)
  // wrk counts a 4xx/5xx answer apart from a socket that failed (connect, read, write, timeout).
  const statusErrors = Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0)
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text)
  const socketErrors = socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0
  return {
    rps,
    p50: latency(text, '50%'),
    p99: latency(text, '99%'),
    errors: statusErrors + socketErrors,
    statusErrors,
    socketErrors,
  }
}

function latency(text, label) {
  const match = new RegExp(`${label}\\s+([\\d.]+)(us|ms|s)`).exec(text)
  if (!match) return 0
  const value = Number(match[1])
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value
}

/**
 * List and get latency with 1,000 vs 100,000 canvases in the workspace: both workspaces seeded
 * first, then measured in turns, run after run, so a noisy moment hits both sizes alike.
 */
async function scaling(app) {
  const workspaces = []
  for (const count of [1000, 100000]) workspaces.push(await seedWorkspace(app, count))
  const runs = new Map(workspaces.map((w) => [w.count, { list: [], get: [], deep: [] }]))
  for (let run = 0; run < RUNS; run++) {
    for (const { count, key } of workspaces) {
      const auth = ['-H', `Authorization: Bearer ${key}`]
      const figures = runs.get(count)
      figures.list.push(wrk({ url: `${app.url}/v1/canvases`, headers: auth }, SECONDS).p50)
      const middle = `${app.url}/v1/canvases/s${count}x${Math.floor(count / 2)}`
      figures.get.push(wrk({ url: middle, headers: auth }, SECONDS).p50)
      const last = `${app.url}/v1/canvases?offset=${Math.max(0, count - 40)}`
      figures.deep.push(wrk({ url: last, headers: auth }, SECONDS).p50)
    }
  }
  return workspaces.map(({ count }) => {
    const figures = runs.get(count)
    return {
      count,
      list: median(figures.list),
      get: median(figures.get),
      deep: median(figures.deep),
    }
  })
}

/** A workspace holding `count` canvases, seeded straight into D1; returns its API key. */
async function seedWorkspace(app, count) {
  const db = await app.mf.getD1Database('DB')
  const email = `scale${count}@example.com`
  const signup = await fetch(`${app.url}/auth/signup`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password: 'bench password' }),
  })
  const cookie = signup.headers.get('set-cookie').split(';')[0]
  const { key } = await (
    await fetch(`${app.url}/auth/keys`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: cookie },
      body: '{"name":"scale"}',
    })
  ).json()
  const me = await (
    await fetch(`${app.url}/v1/me`, { headers: { Authorization: `Bearer ${key}` } })
  ).json()
  const file = await (
    await fetch(`${app.url}/v1/canvases`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}` },
      body: form('seed.txt', 'seed'),
    })
  ).json()
  const fileRow = await db
    .prepare('SELECT v.file_id, v.size FROM versions v WHERE v.canvas_id = ?')
    .bind(file.canvas_id)
    .first()
  const now = Date.now()
  for (let i = 0; i < count; i += 1000) {
    const ids = JSON.stringify(
      Array.from({ length: Math.min(1000, count - i) }, (_, j) => `s${count}x${i + j}`),
    )
    await db.batch([
      db
        .prepare(
          `INSERT INTO canvases (canvas_id, workspace_id, owner_user_id, title, ext, renderer_id, visibility, version, created_at, updated_at, expires_at)
                  SELECT value, ?, ?, 'seeded', 'txt', 'text', 'private', 1, ? - key, ? - key, NULL FROM json_each(?)`,
        )
        .bind(me.workspace.workspace_id, me.user.user_id, now, now, ids),
      db
        .prepare(
          `INSERT INTO versions (canvas_id, version, file_id, size, created_at) SELECT value, 1, ?, ?, ? FROM json_each(?)`,
        )
        .bind(fileRow.file_id, fileRow.size, now, ids),
    ])
  }
  return { count, key }
}

function form(name, content) {
  const f = new FormData()
  f.append('file', new Blob([content]), name)
  f.append('permanent', 'true')
  return f
}

/** 10,000 expired canvases through the scheduled handler: runs needed and time. */
async function sweepBench(app, summaries) {
  const db = await app.mf.getD1Database('DB')
  const me = await db
    .prepare(
      "SELECT user_id, workspace_id FROM workspaces w JOIN users u ON u.user_id = w.owner_user_id WHERE u.email = 'bench@example.com'",
    )
    .first()
  const file = await db
    .prepare('SELECT file_id, size FROM files WHERE workspace_id = ? LIMIT 1')
    .bind(me.workspace_id)
    .first()
  const past = Date.now() - 1000
  for (let i = 0; i < 10000; i += 1000) {
    const ids = JSON.stringify(Array.from({ length: 1000 }, (_, j) => `sweepbench${i + j}`))
    await db.batch([
      db
        .prepare(
          `INSERT INTO canvases (canvas_id, workspace_id, owner_user_id, title, ext, renderer_id, visibility, version, created_at, updated_at, expires_at)
                  SELECT value, ?, ?, 'old', 'txt', 'text', 'private', 1, ?, ?, ? FROM json_each(?)`,
        )
        .bind(me.workspace_id, me.user_id, past, past, past, ids),
      db
        .prepare(
          `INSERT INTO versions (canvas_id, version, file_id, size, created_at) SELECT value, 1, ?, ?, ? FROM json_each(?)`,
        )
        .bind(file.file_id, file.size, past, ids),
    ])
  }
  const worker = await app.mf.getWorker()
  let runs = 0
  const started = performance.now()
  while (runs < 10) {
    runs++
    await worker.scheduled({ scheduledTime: new Date(), cron: '*/15 * * * *' })
    const left = await db
      .prepare("SELECT COUNT(*) AS n FROM canvases WHERE canvas_id LIKE 'sweepbench%'")
      .first()
    if (left.n === 0) break
  }
  // The runtime's log reaches us a moment after the handler returns.
  for (let i = 0; i < 50 && summaries.length < runs; i++)
    await new Promise((r) => setTimeout(r, 100))
  const total = (field) => summaries.reduce((n, line) => n + line.d1[field], 0)
  return {
    runs,
    ms: Math.round(performance.now() - started),
    roundTrips: total('round_trips'),
    statements: total('statements'),
    rowsRead: total('rows_read'),
    rowsWritten: total('rows_written'),
  }
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

function ensureWrk() {
  if (spawnSync('sh', ['-c', 'command -v wrk']).status === 0) return
  console.log('installing wrk (apt-get)…')
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env })
  const result = spawnSync('apt-get', ['install', '-y', '-qq', 'wrk'], { stdio: 'inherit', env })
  if (result.status !== 0) throw new Error('wrk is missing and could not be installed')
}

function fmt(n, d = 0) {
  return n.toFixed(d)
}

function throughputTable(rows) {
  return [
    '| Route | req/s | p50 ms | p99 ms | ratio to baseline | target | non-2xx | socket errors |',
    '| --- | ---: | ---: | ---: | --- | --- | ---: | ---: |',
    ...rows.map((r) => {
      const ratio = r.baseline
        ? `${fmt(r.ratio * 100)}% of ${r.baseline === 'hono' ? 'bare Hono' : 'bare D1 read'}`
        : '—'
      const target = r.target
        ? `≥ ${fmt(r.target * 100)}% ${r.ratio >= r.target ? '✅' : '❌'}`
        : '—'
      return `| ${r.name} | ${fmt(r.rps)} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${ratio} | ${target} | ${r.statusErrors} | ${r.socketErrors} |`
    }),
  ]
}

/** The target: list and get at 100,000 canvases within 1.3 times their p50 at 1,000. */
function scaleVerdict([small, large]) {
  const list = large.list / small.list
  const get = large.get / small.get
  const ok = list <= 1.3 && get <= 1.3
  return `At 100,000 canvases, list p50 is ${fmt(list, 2)}× and get p50 ${fmt(get, 2)}× their p50 at 1,000 (target ≤ 1.3× ${ok ? '✅' : '❌'}; medians of ${RUNS} runs taken in turns).`
}

function writeReport(rows, bundle, scale, sweep) {
  const lines = [
    `## Service throughput (${new Date().toISOString().slice(0, 10)})`,
    '',
    `\`npm run bench\` (\`scripts/bench/run.mjs\`, ${RUNS} interleaved runs of ${SECONDS} s per figure, wrk -t1 -c${CONNECTIONS}; median shown; a ratio is the median of each run's figure over the baseline measured beside it). Machine: ${cpus().length} cores, ${fmt(totalmem() / 2 ** 30)} GiB.`,
    '',
    ...throughputTable(rows),
    '',
    `Worker bundle: ${fmt(bundle.bytes / 1024, 1)} KiB minified, **${fmt(bundle.gzip / 1024, 1)} KiB gzipped** (target ≤ 150 KiB ${bundle.gzip / 1024 <= 150 ? '✅' : '❌'}).`,
    '',
    '| Canvases in the workspace | list p50 ms | get p50 ms | list at the last page p50 ms |',
    '| ---: | ---: | ---: | ---: |',
    ...scale.map(
      (s) =>
        `| ${s.count.toLocaleString('en')} | ${fmt(s.list, 2)} | ${fmt(s.get, 2)} | ${fmt(s.deep, 2)} |`,
    ),
    '',
    scaleVerdict(scale),
    '',
    `Sweep of 10,000 expired canvases: ${sweep.runs} run(s), ${sweep.ms} ms in all (target: within 3 runs ${sweep.runs <= 3 ? '✅' : '❌'}); D1: ${sweep.roundTrips} round trips, ${sweep.statements} statements, ${sweep.rowsRead.toLocaleString('en')} rows read, ${sweep.rowsWritten.toLocaleString('en')} rows written (from the sweep's own summary line).`,
    '',
  ]
  const report = lines.join('\n')
  console.log(report)
  const path = join(root, 'BENCHMARKS.md')
  const current = existsSync(path) ? readFileSync(path, 'utf8') : '# Benchmarks\n'
  const marker = '## Service throughput'
  const start = current.indexOf(marker)
  const end = start < 0 ? -1 : current.indexOf('\n## ', start + marker.length)
  const next =
    start < 0
      ? `${current.trimEnd()}\n\n${report}`
      : current.slice(0, start) + report + (end < 0 ? '' : current.slice(end + 1))
  writeFileSync(path, next)
}
