#!/usr/bin/env node
// The Worker's cold start and size: `wrangler check startup` builds the Worker and profiles its
// start in workerd (a CPU profile of evaluating the bundle's top level); this script runs it
// `--runs` times and reads each profile: the CPU the start kept busy (profiled time less idle),
// the part of it that was garbage collection, and the bundle `wrangler deploy --dry-run` makes,
// gzipped at level 9 as Cloudflare counts the limit.
//   npm run bench:startup -- [--runs 7]
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { gzipSync } from 'node:zlib'

const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' } } })
const RUNS = Number(values.runs)
const env = { ...process.env, WRANGLER_SEND_METRICS: 'false' }
const wrangler = ['node_modules/wrangler/bin/wrangler.js']
const work = mkdtempSync(join(tmpdir(), 'canvas-startup-'))

try {
  const version = run([...wrangler, '--version'])
    .trim()
    .split('\n')
    .pop()
  run([...wrangler, 'deploy', '--dry-run', '--outdir', join(work, 'out')])
  const bundle = readFileSync(join(work, 'out', 'index.js'))
  const gzipped = gzipSync(bundle, { level: 9 }).byteLength
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
    `| ${kib(bundle.byteLength)} KiB | ${kib(gzipped)} KiB | ${median('active').toFixed(1)} ms | ` +
      `${median('gc').toFixed(1)} ms | ${range[0].toFixed(1)}–${range.at(-1).toFixed(1)} ms |`,
  )
} finally {
  rmSync(work, { recursive: true, force: true })
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
