#!/usr/bin/env node
// CLI benchmark: push and pull a large file through the built Worker served by Miniflare's own
// HTTP server on 127.0.0.1, as `npm run bench` serves it (no `wrangler dev` proxy in between),
// beside curl moving as many bytes through the same kind of presigned URLs; then `svc --version`
// wall time beside `node -e 0`. Each run interleaves svc and curl; each ratio is the median of the
// runs' own ratios.
//   node scripts/bench-cli.mjs [size in MiB, default 200] [--runs 3] [--version-runs 30]
//     [--svc path/to/svc.mjs: measure that build (say, a saved copy of an older one) as it is]
import { spawn, spawnSync } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import {
  closeSync,
  createReadStream,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { createAccount, fetchRetry } from './lib/local-service.mjs'
import { startApp } from './lib/miniflare-service.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    runs: { type: 'string', default: '3' },
    'version-runs': { type: 'string', default: '30' },
    svc: { type: 'string' },
  },
})
const sizeMiB = Number(positionals[0] ?? 200)
const bytes = sizeMiB * 2 ** 20
const runs = Number(values.runs)
const work = mkdtempSync(join(tmpdir(), 'canvas-bench-cli-'))
const svcPath = values.svc ? resolve(values.svc) : join(root, 'dist/svc.mjs')
const reporter = join(root, 'scripts/rss-report.mjs')

if (!values.svc) spawnSync(process.execPath, ['cli/build.mjs'], { cwd: root, stdio: 'inherit' })
const app = await startApp(work)
try {
  const { key } = await createAccount(app.url, 'bench@example.com')
  const env = { ...process.env, HOME: work, CANVAS_API_KEY: key, CANVAS_ENDPOINT: app.url }
  const results = []
  let intact = true
  const file = join(work, 'svc.bin')
  const other = join(work, 'curl.bin')
  writeRandom(file, sizeMiB)
  writeRandom(other, sizeMiB)
  for (let run = 0; run < runs; run++) {
    // New bytes each run (the same again would be deduplicated, not uploaded), stamped in place
    // rather than written anew, so that the runs do not fill the page cache with copies.
    stamp(file, run)
    stamp(other, runs + run)
    // svc and curl back to back, taking turns at going first, both downloading the same object.
    const svcFirst = run % 2 === 0
    const [push, curlPut] = await pair(
      svcFirst,
      () => measure(['push', file, '--save'], env),
      () => curlUpload(app.url, key, other),
    )
    const id = push.stdout.split('\n')[0].trim()
    const location = await signedLocation(app.url, key, id)
    const out = join(work, 'pulled.bin')
    const [pull, curlGet] = await pair(
      svcFirst,
      () => measure(['pull', id, '--output', out], env),
      () => timed('curl', ['-sS', '-f', '-o', join(work, 'curl.out'), location]),
    )
    intact &&= (await sha(file)) === (await sha(out))
    // Freeing a 1 GiB file costs this disk a fraction of a second: never inside a timed step.
    rmSync(out)
    rmSync(join(work, 'curl.out'))
    const result = { svcFirst, push, pull, curlPut, curlGet }
    console.log(runLine(run, result))
    results.push(result)
  }
  const versionRatio = startupRatio(Number(values['version-runs']))
  report(results, intact, versionRatio)
  if (!intact) process.exitCode = 1
} finally {
  await app.stop()
  rmSync(work, { recursive: true, force: true })
}

// Targets are in MB (10^6 bytes) and MB/s; MiB figures are given beside them.
function mb(n) {
  return (n / 1e6).toFixed(1)
}

function mib(n) {
  return (n / 2 ** 20).toFixed(1)
}

function percent(ratio) {
  return `${(ratio * 100).toFixed(0)}%`
}

function runLine(run, r) {
  return [
    `run ${run + 1} (${r.svcFirst ? 'svc' : 'curl'} first):`,
    `push ${r.push.seconds.toFixed(2)} s (its PUT ${r.push.putSeconds.toFixed(2)} s),`,
    `curl PUT ${r.curlPut.toFixed(2)} s;`,
    `pull ${r.pull.seconds.toFixed(2)} s, curl GET ${r.curlGet.toFixed(2)} s;`,
    `peak RSS push ${mib(r.push.maxRssKiB * 1024)} MiB, pull ${mib(r.pull.maxRssKiB * 1024)} MiB`,
  ].join(' ')
}

/** Each ratio is the median of the runs' own: svc beside the curl run next to it. */
function report(results, intact, version) {
  const of = (pick) => median(results.map(pick))
  const rates = (pick) => {
    const list = results.map((r) => bytes / pick(r)).sort((a, b) => a - b)
    return `${mb(list[0])}–${mb(list.at(-1))} MB/s`
  }
  const peak = (pick) => {
    const b = Math.max(...results.map(pick)) * 1024
    return `${mb(b)} MB (${mib(b)} MiB)`
  }
  const lines = [
    `file: ${mib(bytes)} MiB (${mb(bytes)} MB); ${runs} runs; bytes intact after the round trip: ${intact}`,
    `push: svc at ${percent(of((r) => r.curlPut / r.push.seconds))} of curl, hashing included; its PUT alone at ${percent(of((r) => r.curlPut / r.push.putSeconds))} (target: at least 80%)`,
    `  svc ${rates((r) => r.push.seconds)}, curl ${rates((r) => r.curlPut)} across the runs`,
    `pull: svc at ${percent(of((r) => r.curlGet / r.pull.seconds))} of curl (target: at least 80%)`,
    `  svc ${rates((r) => r.pull.seconds)}, curl ${rates((r) => r.curlGet)} across the runs`,
    `peak RSS, highest of the runs: push ${peak((r) => r.push.maxRssKiB)}, pull ${peak((r) => r.pull.maxRssKiB)} (target: under 100 MB each)`,
    `svc --version: ${version.svc.toFixed(1)} ms; node -e 0: ${version.bare.toFixed(1)} ms; ratio ${(version.svc / version.bare).toFixed(2)} (medians of ${version.runs} interleaved runs; target: at most 1.25)`,
  ]
  console.log(lines.join('\n'))
}

async function pair(svcFirst, svcStep, curlStep) {
  if (svcFirst) return [await svcStep(), await curlStep()]
  const curl = await curlStep()
  return [await svcStep(), curl]
}

/** Runs svc with the RSS reporter preloaded; peak RSS is the kernel's ru_maxrss, in KiB. */
async function measure(args, env) {
  const report = join(work, `rss-${args[0]}`)
  settle()
  const started = performance.now()
  const result = await run(process.execPath, ['--import', reporter, svcPath, ...args], {
    ...env,
    RSS_REPORT: report,
  })
  const seconds = (performance.now() - started) / 1000
  if (result.code !== 0) throw new Error(`svc ${args[0]} failed: ${result.stderr}`)
  return {
    seconds,
    putSeconds: lastPutSeconds(),
    maxRssKiB: Number(readFileSync(report, 'utf8')),
    stdout: result.stdout,
  }
}

/** The last PUT's duration as svc logged it in $HOME/.svc/cli.log (HOME is the work folder). */
function lastPutSeconds() {
  const log = readFileSync(join(work, '.svc/cli.log'), 'utf8')
  const ms = [...log.matchAll(/\[INFO\] PUT \S+ \{"status":200,"ms":(\d+)\}/g)].at(-1)?.[1]
  return ms === undefined ? NaN : Number(ms) / 1000
}

/** Presigns a file through the API and PUTs it with curl; returns the PUT's seconds. */
async function curlUpload(base, key, path) {
  const size = statSync(path).size
  const meta = { sha256: await sha(path), ext: 'bin', size, mime: 'application/octet-stream' }
  const presign = await api(base, key, '/v1/upload/presign', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(meta),
  })
  const { upload_url: url } = await presign.json()
  return timed('curl', [
    '-sS',
    '-f',
    '-X',
    'PUT',
    '-H',
    'Expect:',
    '-T',
    path,
    '-o',
    '/dev/null',
    url,
  ])
}

async function signedLocation(base, key, id) {
  const res = await api(base, key, `/v1/canvases/${id}/content`, { redirect: 'manual' })
  return res.headers.get('location')
}

async function api(base, key, path, init = {}) {
  const res = await fetchRetry(base + path, {
    ...init,
    headers: { ...init.headers, Authorization: `Bearer ${key}` },
  })
  if (res.status >= 400) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`)
  return res
}

async function timed(command, args) {
  settle()
  const started = performance.now()
  const result = await run(command, args)
  if (result.code !== 0) throw new Error(`${command} failed: ${result.stderr}`)
  return (performance.now() - started) / 1000
}

/** Each timed step starts with no dirty pages left by the last one for the kernel to write back. */
function settle() {
  spawnSync('sync')
}

/** Not spawnSync: the service's output must keep flowing while a transfer runs. */
function run(command, args, env = process.env) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** Interleaved, so a burst of load on this machine hits both sides alike. */
function startupRatio(count) {
  const time = (args) => {
    const started = performance.now()
    spawnSync(process.execPath, args, { stdio: 'ignore' })
    return performance.now() - started
  }
  const svc = []
  const bare = []
  for (let i = 0; i < count; i++) {
    svc.push(time([svcPath, '--version']))
    bare.push(time(['-e', '0']))
  }
  return { svc: median(svc), bare: median(bare), runs: count }
}

function median(list) {
  return [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]
}

function writeRandom(path, sizeMiB) {
  const fd = openSync(path, 'w')
  const chunk = randomBytes(1024 * 1024)
  for (let i = 0; i < sizeMiB; i++) {
    chunk.writeUInt32LE(i, 0)
    writeSync(fd, chunk)
  }
  closeSync(fd)
}

/** Makes the file's first bytes, and so its sha256, those of run `n`. */
function stamp(path, n) {
  const fd = openSync(path, 'r+')
  const head = Buffer.alloc(8)
  head.writeDoubleLE(n)
  writeSync(fd, head, 0, head.length, 0)
  closeSync(fd)
}

async function sha(path) {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path)) hash.update(chunk)
  return hash.digest('hex')
}
