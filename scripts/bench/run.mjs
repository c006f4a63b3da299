#!/usr/bin/env node
// `npm run bench`: the built Worker served by Miniflare's own HTTP server on 127.0.0.1 (not
// `wrangler dev`, whose proxy caps throughput), beside two baselines in the same runtime: a bare
// Hono Worker and a bare Worker doing one D1 primary-key read. Load comes from wrk in a separate
// process; each figure is the median of interleaved runs. Results go to BENCHMARKS.md.
//   node scripts/bench/run.mjs [--runs 5] [--seconds 5] [--connections 32] [--only <text>]
// --only measures just the routes whose name contains <text> (beside both baselines), prints the
// table and leaves BENCHMARKS.md alone: for trying a change quickly.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import { appOptions, buildWorker, migrate, serve } from '../lib/miniflare-service.mjs'
import { throughputTable, writeReport } from './report.mjs'
import { copyCanvasRow, presignScript, seedApp, seedExpired, seedWorkspace } from './seed.mjs'
import { ensureWrk, median, wrk as load } from './wrk.mjs'

const root = fileURLToPath(new URL('../..', import.meta.url))
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
const wrk = (target, seconds) => load(target, seconds, CONNECTIONS)

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
  const seed = await seedApp(app.url)
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
  await copyCanvasRow(app.mf, d1.mf, seed.canvasId)

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
      lua: presignScript(work),
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
    writeReport(join(root, 'BENCHMARKS.md'), {
      rows,
      bundle,
      scale,
      sweep: sweepResult,
      runs: RUNS,
      seconds: SECONDS,
      connections: CONNECTIONS,
    })
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

/**
 * List and get latency with 1,000 vs 100,000 canvases in the workspace: both workspaces seeded
 * first, then measured in turns, run after run, so a noisy moment hits both sizes alike.
 */
async function scaling(app) {
  const workspaces = []
  for (const count of [1000, 100000])
    workspaces.push({ count, key: await seedWorkspace(app, count) })
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

/** 10,000 expired canvases through the scheduled handler: runs needed and time. */
async function sweepBench(app, summaries) {
  await seedExpired(app, 10000)
  const db = await app.mf.getD1Database('DB')
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
