#!/usr/bin/env node
// The Worker's cold start and size: `wrangler check startup` builds the Worker and profiles its
// start in workerd (a CPU profile of evaluating the bundle's top level); this script runs it
// `--runs` times and reads each profile: the CPU the start kept busy (profiled time less idle),
// the part of it that was garbage collection, and the bundle `wrangler deploy --dry-run` makes,
// gzipped at level 9 as Cloudflare counts the limit. With --by-module, what each module's
// evaluation costs instead: the start of an unminified build (whose modules keep their names:
// each is evaluated by a function named by its path) profiled --runs times, each sample counted
// to the nearest module being evaluated, so a module's figure includes the library calls its top
// level makes (zod schemas, drizzle tables, routes added) but not the modules it imports. The
// bundler wraps a module in such a function only when something imports it on demand or its
// order needs it; the rest run in the bundle's own top level, counted as that.
//   npm run bench:startup -- [--runs 7] [--by-module] [--top 40]
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { BUNDLE_BUDGET_KIB, bundleSize } from '../lib/bundle.mjs'

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
// The name of the function that evaluates a module in an unminified build: its path.
const MODULE = /^(src|node_modules|build)\/|\.(m?[jt]sx?|json)$/

try {
  if (values['by-module']) byModule()
  else whole()
} finally {
  rmSync(work, { recursive: true, force: true })
}

function whole() {
  const version = run([...wrangler, '--version'])
    .trim()
    .split('\n')
    .pop()
  const { minified, gzipped } = bundleSize()
  const figures = []
  for (let i = 0; i < RUNS; i++) {
    const profile = join(work, `startup-${i}.cpuprofile`)
    run([...wrangler, 'check', 'startup', '--outfile', profile])
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

/** Each module's share of the start, summed over the runs and shown per run. */
function byModule() {
  const bundle = join(work, 'worker.bundle')
  run([...wrangler, 'deploy', '--dry-run', '--no-minify', '--outfile', bundle])
  const costs = new Map()
  let busy = 0
  for (let i = 0; i < RUNS; i++) {
    const file = join(work, `startup-${i}.cpuprofile`)
    run([...wrangler, 'check', 'startup', '--worker', bundle, '--outfile', file])
    busy += countByModule(JSON.parse(readFileSync(file, 'utf8')), costs)
  }
  const ms = (us) => (us / 1000 / RUNS).toFixed(1).padStart(6)
  console.log(`start of the unminified build, busy: ${ms(busy).trim()} ms (mean of ${RUNS})`)
  console.log('| ms | module (or what ran outside any: the engine, the collector) |')
  console.log('| ---: | --- |')
  const rows = [...costs].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))
  for (const [name, us] of rows) console.log(`| ${ms(us)} | ${name} |`)
}

/** Adds each busy sample of `profile` to the module being evaluated; answers the busy µs. */
function countByModule(profile, costs) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]))
  const parents = new Map()
  for (const n of profile.nodes) for (const child of n.children ?? []) parents.set(child, n.id)
  let busy = 0
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0
    const own = nodes.get(id).callFrame.functionName
    if (own === '(idle)') return
    busy += delta
    let at = id
    while (at !== undefined && !MODULE.test(nodes.get(at).callFrame.functionName)) {
      at = parents.get(at)
    }
    const name =
      at === undefined ? own || "(the bundle's top level)" : nodes.get(at).callFrame.functionName
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

function run(args) {
  const result = spawnSync(process.execPath, args, { env, encoding: 'utf8' })
  if (result.status !== 0) {
    throw new Error(`${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`)
  }
  return result.stdout
}

function kib(bytes) {
  return (bytes / 1024).toFixed(1)
}
