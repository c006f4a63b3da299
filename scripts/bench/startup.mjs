#!/usr/bin/env node
// The Worker's cold start and size: `wrangler check startup` profiles the start of the Worker as
// `wrangler deploy --dry-run` builds it, in workerd (a CPU profile of evaluating its entry module
// and what that imports). This script runs it `--runs` times and reads each profile: the CPU the
// start kept busy (profiled time less idle) and the part of it that was garbage collection; and
// it measures the modules a deploy uploads (scripts/lib/bundle.mjs), gzipped at level 9 as
// wrangler counts the limit. With --by-module, what each source file costs instead: the start of
// an unminified build profiled --runs times, each sample counted to the source file its code came
// from (esbuild names each file's code in a comment before it), so a file's figure is the time
// its own code ran, library calls apart.
//   npm run bench:startup -- [--runs 7] [--by-module] [--top 40]
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { BUNDLE_BUDGET_KIB, bundleSize } from '../lib/bundle.mjs'
import { bundleWorker } from '../bundle-worker.mjs'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '7' },
    'by-module': { type: 'boolean', default: false },
    top: { type: 'string', default: '40' },
  },
})
const RUNS = Number(values.runs)
const env = { ...process.env, WRANGLER_SEND_METRICS: 'false' }
const wrangler = ['node_modules/wrangler/bin/wrangler.js']
const work = mkdtempSync(join(tmpdir(), 'canvas-startup-'))
const root = fileURLToPath(new URL('../..', import.meta.url))

try {
  if (values['by-module']) await byModule()
  else await whole()
} finally {
  rmSync(work, { recursive: true, force: true })
}

async function whole() {
  const version = run([...wrangler, '--version'])
    .trim()
    .split('\n')
    .pop()
  const { minified, gzipped } = await bundleSize()
  // Built once as a deploy builds it, then started --runs times.
  const bundle = join(work, 'worker.bundle')
  run([...wrangler, 'deploy', '--dry-run', '--outfile', bundle])
  const figures = []
  for (let i = 0; i < RUNS; i++) {
    const profile = join(work, `startup-${i}.cpuprofile`)
    run([...wrangler, 'check', 'startup', '--worker', bundle, '--outfile', profile])
    figures.push(read(JSON.parse(readFileSync(profile, 'utf8'))))
  }
  const median = (key) => figures.map((f) => f[key]).sort((a, b) => a - b)[Math.floor(RUNS / 2)]
  console.log(`wrangler ${version}, node ${process.version}`)
  console.log(`| bundle | gzipped | start, CPU (median of ${RUNS}) | of it GC | range |`)
  console.log('| ---: | ---: | ---: | ---: | ---: |')
  const range = figures.map((f) => f.active).sort((a, b) => a - b)
  console.log(
    `| ${kib(minified)} KiB | ${kib(gzipped)} KiB | ${median('active').toFixed(1)} ms | ` +
      `${median('gc').toFixed(1)} ms | ${range[0].toFixed(1)}–${range.at(-1).toFixed(1)} ms |`,
  )
  console.log(`the bundle's budget: ${BUNDLE_BUDGET_KIB} KiB gzipped (scripts/lib/bundle.mjs)`)
}

/** Each source file's share of the start, summed over the runs and shown per run. */
async function byModule() {
  const bundle = join(work, 'worker.bundle')
  // The build command (scripts/bundle-worker.mjs) leaves the modules unminified, each source
  // file's code after a comment naming it.
  run([...wrangler, 'deploy', '--dry-run', '--outfile', bundle], { CANVAS_NO_MINIFY: '1' })
  const sources = sourcesByLine(join(root, 'dist/worker'))
  const costs = new Map()
  let busy = 0
  for (let i = 0; i < RUNS; i++) {
    const file = join(work, `startup-${i}.cpuprofile`)
    run([...wrangler, 'check', 'startup', '--worker', bundle, '--outfile', file])
    busy += countByModule(JSON.parse(readFileSync(file, 'utf8')), sources, costs)
  }
  // dist/worker as a deploy leaves it: minified.
  await bundleWorker()
  const ms = (us) => (us / 1000 / RUNS).toFixed(1).padStart(6)
  console.log(`start of the unminified build, busy: ${ms(busy).trim()} ms (mean of ${RUNS})`)
  console.log('| ms | source file (or what ran outside any: the engine, the collector) |')
  console.log('| ---: | --- |')
  const rows = [...costs].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))
  for (const [name, us] of rows) console.log(`| ${ms(us)} | ${name} |`)
}

/** For each module under `dir`, the source file each of its lines came from (esbuild's comments). */
function sourcesByLine(dir) {
  const modules = new Map()
  for (const name of readdirSync(dir).filter((file) => file.endsWith('.js'))) {
    let source = '(the bundler)'
    const lines = readFileSync(join(dir, name), 'utf8')
      .split('\n')
      .map((line) => {
        const named = /^\/\/ ((src|node_modules|build)\/\S+)$/.exec(line)
        if (named) source = named[1]
        return source
      })
    modules.set(name, lines)
  }
  return modules
}

/** Adds each busy sample of `profile` to the source file its code came from; answers busy µs. */
function countByModule(profile, sources, costs) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]))
  let busy = 0
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0
    const { functionName, url, lineNumber } = nodes.get(id).callFrame
    if (functionName === '(idle)') return
    busy += delta
    const lines = sources.get(url.split('/').pop())
    const name = lines?.[lineNumber] ?? (functionName || '(the engine)')
    costs.set(name, (costs.get(name) ?? 0) + delta)
  })
  return busy
}

/** Busy and garbage-collecting time of a V8 CPU profile, in ms. */
function read(profile) {
  const names = new Map(profile.nodes.map((n) => [n.id, n.callFrame.functionName]))
  let idle = 0
  let gc = 0
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0
    if (names.get(id) === '(idle)') idle += delta
    if (names.get(id) === '(garbage collector)') gc += delta
  })
  const total = profile.endTime - profile.startTime
  return { active: (total - idle) / 1000, gc: gc / 1000 }
}

function run(args, extra = {}) {
  const result = spawnSync(process.execPath, args, { env: { ...env, ...extra }, encoding: 'utf8' })
  if (result.status !== 0) {
    throw new Error(`${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`)
  }
  return result.stdout
}

function kib(bytes) {
  return (bytes / 1024).toFixed(1)
}
