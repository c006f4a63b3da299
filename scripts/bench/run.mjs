#!/usr/bin/env node
// `npm run bench`: the built Worker served by Miniflare's own HTTP server on 127.0.0.1 (not
// `wrangler dev`, whose proxy caps throughput), beside two baselines in the same runtime: a bare
// Hono Worker and a bare Worker doing one D1 primary-key read. Load comes from wrk in a separate
// process; each figure is the median of interleaved runs. Results go to BENCHMARKS.md.
//   node scripts/bench/run.mjs [--runs 5] [--seconds 5] [--connections 32] [--only <text>]
// --only measures just the routes whose name contains <text> (beside both baselines), prints the
// table and leaves BENCHMARKS.md alone: for trying a change quickly.
// Seeding retries what the runtime drops (scripts/lib/retry.mjs); a figure wrk could not measure,
// or a section that failed all the same, is reported as "not measured (why)" beside the rest.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { appOptions, buildWorker, migrate, serve } from '../lib/miniflare-service.mjs'
import { describe } from '../lib/retry.mjs'
import { bundleBaseline } from './baseline.mjs'
import { lastPage } from './pages.mjs'
import { isMeasured, notMeasured, notMeasuredIn, throughputTable, writeReport } from './report.mjs'
import {
  copyCanvasRow,
  presignScript,
  freshPresignScript,
  seedApp,
  seedExpired,
  seedWorkspace,
  withDb,
} from './seed.mjs'
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
  const bundle = { bytes: built.bytes, gzip: built.gzip }
  const sweepLines = []
  const app = await serveBench('app', {
    ...appOptions(work, built.path),
    // The sweep's JSON summary line, with its D1 cost, is read from the runtime's log.
    handleStructuredLogs: ({ message }) => {
      if (message.includes('"event":"sweep"')) sweepLines.push(JSON.parse(message))
    },
  })
  await migrate(app.mf)
  // Each section stands alone: one that fails after its retries is reported as not measured,
  // and the others are still measured, printed and written.
  const rows = await section('throughput', () => throughput(app))
  if (ONLY) {
    if (!isMeasured(rows)) throw new Error(`throughput not measured: ${rows.notMeasured}`)
    console.log(throughputTable(rows, RUNS).join('\n'))
  } else {
    const scale = await section('scaling', () => scaling(app))
    const sweep = await section('sweep', () => sweepBench(app, sweepLines))
    if (![rows, scale, sweep].some(isMeasured))
      throw new Error('nothing was measured: BENCHMARKS.md is left as it was')
    writeReport(join(root, 'BENCHMARKS.md'), {
      rows,
      bundle,
      scale,
      sweep,
      runs: RUNS,
      seconds: SECONDS,
      connections: CONNECTIONS,
    })
    const missing = notMeasuredIn({ rows, scale, sweep })
    if (missing.length)
      console.error(`Not measured (${missing.length}), see above:\n  ${missing.join('\n  ')}`)
  }
} finally {
  for (const s of servers)
    await s.mf.dispose().catch((err) => console.error(`disposing of ${s.name}: ${describe(err)}`))
  rmSync(work, { recursive: true, force: true })
}

/** `measure()`, or when it throws, its reason as a figure not measured (told on stderr). */
async function section(name, measure) {
  try {
    return await measure()
  } catch (err) {
    console.error(`${name}: not measured:`, err)
    return notMeasured(err)
  }
}

/** One wrk run's figures, or when wrk fails, the reason as a figure not measured. */
function tryWrk(target, seconds, run = 'not measured') {
  try {
    return wrk(target, seconds)
  } catch (err) {
    console.error(`${run}: ${describe(err)}`)
    // The route's row already names the URL: the table gets wrk's own reason.
    return notMeasured(err.wrkFailure ? `wrk: ${err.wrkFailure}` : err)
  }
}

/**
 * The routes beside both baselines, run after run in turns: the app's data seeded through the
 * API, the bare D1 Worker given its own copy of the canvas row it reads.
 */
async function throughput(app) {
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

  const measured = routes(app, hono, d1, seed).filter(
    (t) => !ONLY || t.kind || t.name.includes(ONLY),
  )
  const results = new Map(measured.map((t) => [t.name, []]))
  for (const t of measured) tryWrk(t, 1, 'warm-up, not counted')
  for (let run = 0; run < RUNS; run++) {
    for (const t of measured) results.get(t.name).push(tryWrk(t, SECONDS))
  }
  const baselineRuns = {
    hono: results.get(measured.find((t) => t.kind === 'hono').name),
    d1: results.get(measured.find((t) => t.kind === 'd1').name),
  }
  return measured.map((t) => throughputRow(t, results.get(t.name), baselineRuns[t.baseline]))
}

function routes(app, hono, d1, seed) {
  const auth = ['-H', `Authorization: Bearer ${seed.key}`]
  return [
    { name: 'bare Hono (baseline)', url: `${hono.url}/`, kind: 'hono' },
    { name: 'bare D1 read (baseline)', url: `${d1.url}/`, kind: 'd1' },
    { name: 'GET /health', url: `${app.url}/health`, baseline: 'hono', target: 0.9 },
    {
      name: 'GET /v1/canvases/:id',
      url: `${app.url}/v1/canvases/${seed.canvasId}`,
      headers: auth,
      baseline: 'd1',
      target: 0.9,
    },
    {
      name: 'GET /v1/canvases (20 items)',
      url: `${app.url}/v1/canvases`,
      headers: auth,
      baseline: 'd1',
      target: 0.9,
    },
    {
      name: 'POST /v1/upload/presign',
      url: `${app.url}/v1/upload/presign`,
      headers: auth,
      lua: presignScript(work),
      baseline: 'd1',
      target: 0.9,
    },
    {
      name: 'POST /v1/upload/presign (new content)',
      url: `${app.url}/v1/upload/presign`,
      headers: auth,
      lua: freshPresignScript(work),
      baseline: 'd1',
      target: 0.9,
    },
    {
      name: 'GET /share/:token/content',
      url: `${app.url}/share/${seed.token}/content`,
      baseline: 'd1',
      target: 0.9,
    },
    {
      name: 'GET /c/:id (viewer page)',
      url: `${app.url}/c/${seed.publicId}`,
      baseline: 'd1',
      target: 0.9,
    },
  ]
}

/**
 * A route's medians over the runs wrk measured, or not measured when none was. Its ratio is the
 * median of each run's figure over its own baseline, measured moments apart (the machine's load
 * drifts between runs far more than between neighbours), over the runs where both were measured.
 */
function throughputRow(t, runs, baselineRuns) {
  const ok = runs.filter(isMeasured)
  if (ok.length === 0) return { ...t, notMeasured: runs[0].notMeasured }
  const ratios = baselineRuns
    ? runs.flatMap((r, i) =>
        isMeasured(r) && isMeasured(baselineRuns[i]) ? [r.rps / baselineRuns[i].rps] : [],
      )
    : []
  return {
    ...t,
    runs: ok.length,
    rps: median(ok.map((r) => r.rps)),
    ratio: median(ratios),
    p50: median(ok.map((r) => r.p50)),
    p99: median(ok.map((r) => r.p99)),
    statusErrors: ok.reduce((n, r) => n + r.statusErrors, 0),
    socketErrors: ok.reduce((n, r) => n + r.socketErrors, 0),
  }
}

async function serveBench(name, options) {
  const server = await serve(options)
  servers.push({ name, mf: server.mf })
  return server
}

/**
 * List and get latency with 1,000 vs 100,000 canvases in the workspace: the first page, the last
 * page by cursor and by offset (the same canvases, lastPage), and a canvas by id. Both workspaces
 * are seeded first, then measured in turns, run after run, so a noisy moment hits both sizes
 * alike; a workspace whose seeding fails is reported as not measured, beside the other.
 */
async function scaling(app) {
  const workspaces = []
  for (const count of [1000, 100000]) {
    workspaces.push({
      count,
      ...(await section(`scaling at ${count}`, () => scaleWorkspace(app, count))),
    })
  }
  const seeded = workspaces.filter(isMeasured)
  if (seeded.length === 0) throw new Error(workspaces[0].notMeasured)
  for (let run = 0; run < RUNS; run++) {
    for (const w of seeded) {
      for (const [figure, url] of Object.entries(w.urls)) {
        w.runs[figure].push(p50(url, w.auth))
      }
    }
  }
  return workspaces.map((w) => (isMeasured(w) ? scaleRow(w) : w))
}

/** A workspace of `count` canvases, its deepest page found, and the URLs measured in it. */
async function scaleWorkspace(app, count) {
  const key = await seedWorkspace(app, count)
  const last = await lastPage(app.url, key)
  const list = `${app.url}/v1/canvases`
  // In the order measured: the first page and the last by cursor back to back, for their ratio.
  const urls = {
    list,
    cursor: `${list}?cursor=${last.cursor}`,
    get: `${list}/s${count}x${Math.floor(count / 2)}`,
    offset: `${list}?offset=${last.offset}`,
  }
  const runs = Object.fromEntries(Object.keys(urls).map((figure) => [figure, []]))
  return { count, total: last.total, limit: last.limit, urls, runs, auth: bearer(key) }
}

function bearer(key) {
  return ['-H', `Authorization: Bearer ${key}`]
}

/**
 * One wrk run's p50 at `url`, or not measured: also when any answer was not 2xx, whose latency
 * is not the page's.
 */
function p50(url, headers) {
  const result = tryWrk({ url, headers }, SECONDS)
  if (!isMeasured(result)) return result
  if (result.statusErrors === 0) return result.p50
  const reason = `${result.statusErrors} of ${result.requests} answers not 2xx`
  console.error(`not measured: ${url}: ${reason}`)
  return notMeasured(reason)
}

/**
 * The medians of one workspace's figures over the runs measured; the last page by cursor over
 * the first page is the median of each run's own ratio (the two measured back to back).
 */
function scaleRow({ count, total, limit, runs }) {
  const figure = (name) => {
    const measured = runs[name].filter(isMeasured)
    return measured.length ? median(measured) : runs[name][0]
  }
  const ratios = runs.list.flatMap((first, i) => {
    const last = runs.cursor[i]
    return isMeasured(first) && isMeasured(last) ? [last / first] : []
  })
  return {
    count,
    total,
    limit,
    list: figure('list'),
    cursor: figure('cursor'),
    get: figure('get'),
    offset: figure('offset'),
    cursorRatio: ratios.length ? median(ratios) : notMeasured('no run measured both pages'),
  }
}

/**
 * 10,000 expired canvases through the scheduled handler: runs needed and time. A handler run is
 * not retried (the figures are its runs); a failed one leaves the sweep not measured.
 */
async function sweepBench(app, summaries) {
  await seedExpired(app, 10000)
  const worker = await app.mf.getWorker()
  const left = () =>
    withDb(app.mf, 'counting the expired canvases left', (db) =>
      db.prepare("SELECT COUNT(*) AS n FROM canvases WHERE canvas_id LIKE 'sweepbench%'").first(),
    )
  let runs = 0
  const started = performance.now()
  while (runs < 10) {
    runs++
    await worker.scheduled({ scheduledTime: new Date(), cron: '*/15 * * * *' })
    if ((await left()).n === 0) break
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
    canvases: summaries.reduce((n, line) => n + line.canvases, 0),
    files: summaries.reduce((n, line) => n + line.files, 0),
  }
}
