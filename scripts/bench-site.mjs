#!/usr/bin/env node
// Site benchmark: `svc push <folder>` of a 500-file, 50 MiB folder, then the same folder again as
// a new version with one file changed, then `svc pull -o <folder>` of it, against the built Worker
// served by Miniflare's own HTTP server on 127.0.0.1 (as `npm run bench:cli` serves it). For each
// step: wall time, the svc process's CPU time and peak RSS, and the HTTP requests it made (from
// its own log, ~/.svc/cli.log: one line per request, 429s included). Run once with the API's rate
// limit off, to measure the CLI, and once with the per-key limit wrangler.jsonc sets (600/min).
//   node scripts/bench-site.mjs [--files 500] [--mib 50] [--limits 0,600]
//     [--svc path/to/svc.mjs: measure that build as it is]
import { spawn, spawnSync } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { createAccount } from './lib/local-service.mjs'
import { appOptions, buildWorker, migrate, serve } from './lib/miniflare-service.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '500' },
    mib: { type: 'string', default: '50' },
    limits: { type: 'string', default: '0,600' },
    svc: { type: 'string' },
  },
})
const fileCount = Number(values.files)
const totalBytes = Number(values.mib) * 2 ** 20
const svcPath = values.svc ? resolve(values.svc) : join(root, 'dist/svc.mjs')
const reporter = join(root, 'scripts/rss-report.mjs')
const work = mkdtempSync(join(tmpdir(), 'canvas-bench-site-'))

if (!values.svc) spawnSync(process.execPath, ['cli/build.mjs'], { cwd: root, stdio: 'inherit' })
const bundle = buildWorker(join(work, 'worker'))
const rows = []
try {
  for (const limit of values.limits.split(',').map(Number)) {
    rows.push(...(await scenario(limit)))
  }
  console.log(table(rows))
} finally {
  rmSync(work, { recursive: true, force: true })
}

/** One service, with the API's per-key limit at `limit` a minute (0: none): push, push, pull. */
async function scenario(limit) {
  const state = mkdtempSync(join(work, 'state-'))
  const options = appOptions(state, bundle.path)
  if (limit > 0) {
    options.ratelimits = { API_LIMITER: { namespace_id: '9100', simple: { limit, period: 60 } } }
  }
  const app = await serve(options)
  try {
    await migrate(app.mf)
    const { key } = await createAccount(app.url, 'bench@example.com')
    const env = { ...process.env, CANVAS_API_KEY: key, CANVAS_ENDPOINT: app.url }
    const site = join(state, 'site')
    const paths = writeSite(site)
    const label = limit > 0 ? `${limit}/min` : 'no limit'
    // What any command holds: Node, the bundle, one API call.
    const idle = await measure(['whoami'], env)
    const first = await measure(['push', site, '--json'], env)
    const id = JSON.parse(first.stdout).canvas_id
    // One small page rewritten: the new version must send that file alone.
    writeFileSync(join(site, paths[7]), randomBytes(6000))
    const second = await measure(['push', site, '--id', id, '--json'], env)
    const out = join(state, 'pulled')
    const pull = await measure(['pull', id, '-o', out], env)
    const intact = same(site, out)
    const upload = (step) => JSON.parse(step.stdout).upload
    return [
      { label, step: '`svc whoami`, for scale', ...idle, note: '' },
      { label, step: 'first push', ...first, note: sent(upload(first)) },
      { label, step: 'push again, 1 file changed', ...second, note: sent(upload(second)) },
      { label, step: 'pull -o <folder>', ...pull, note: intact ? 'tree identical' : 'DIFFERS' },
    ]
  } finally {
    await app.mf.dispose()
  }
}

/** `fileCount` files of incompressible bytes, `totalBytes` in all: many small, a few large. */
function writeSite(dir) {
  const small = Math.round(fileCount * 0.9)
  const sizes = Array.from({ length: fileCount }, (_, i) =>
    i < small ? 2048 + ((i * 7919) % 30_000) : 0,
  )
  const smallTotal = sizes.reduce((a, b) => a + b, 0)
  const large = fileCount - small
  for (let i = small; i < fileCount; i++) sizes[i] = Math.floor((totalBytes - smallTotal) / large)
  sizes[fileCount - 1] += totalBytes - sizes.reduce((a, b) => a + b, 0)
  const kinds = ['html', 'css', 'js', 'json', 'svg']
  const paths = sizes.map((_, i) =>
    i < small
      ? `section-${String(i % 20).padStart(2, '0')}/${kinds[i % kinds.length]}/page-${i}.${kinds[i % kinds.length]}`
      : `assets/img/photo-${i}.${i % 2 ? 'jpg' : 'png'}`,
  )
  paths.forEach((path, i) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), randomBytes(sizes[i]))
  })
  writeFileSync(join(dir, 'index.html'), '<h1>bench</h1>')
  return paths
}

/** Runs svc with a HOME of its own (its log then holds this step's requests only). */
async function measure(args, env) {
  const home = mkdtempSync(join(work, 'home-'))
  const report = join(home, 'rss')
  const cpu = join(home, 'cpu')
  spawnSync('sync')
  const started = performance.now()
  const result = await run(process.execPath, ['--import', reporter, svcPath, ...args], {
    ...env,
    HOME: home,
    RSS_REPORT: report,
    CPU_REPORT: cpu,
  })
  const seconds = (performance.now() - started) / 1000
  if (result.code !== 0) throw new Error(`svc ${args[0]} failed: ${result.stderr}`)
  const log = readFileSync(join(home, '.svc/cli.log'), 'utf8')
  const requests = [...log.matchAll(/\[INFO\] (GET|POST|PUT|PATCH) (\S+) \{"status":(\d+)/g)]
  return {
    seconds,
    rssMiB: Number(readFileSync(report, 'utf8')) / 1024,
    cpuSeconds: Number(readFileSync(cpu, 'utf8')) / 1000,
    api: requests.filter((m) => !m[2].startsWith('/_storage/')).length,
    puts: requests.filter((m) => m[1] === 'PUT').length,
    limited: requests.filter((m) => m[3] === '429').length,
    stdout: result.stdout,
  }
}

function run(command, args, env) {
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

function sent(u) {
  return `${u.uploaded} of ${u.files} files sent (${mib(u.uploaded_bytes)} MiB)`
}

function mib(n) {
  return (n / 2 ** 20).toFixed(1)
}

/** Every file under `a` has the same bytes under `b`, and `b` holds nothing else. */
function same(a, b) {
  const digests = (dir) =>
    Object.fromEntries(
      readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => {
          const full = join(e.parentPath, e.name)
          return [
            relative(dir, full),
            createHash('sha256').update(readFileSync(full)).digest('hex'),
          ]
        }),
    )
  return (
    JSON.stringify(Object.entries(digests(a)).sort()) ===
    JSON.stringify(Object.entries(digests(b)).sort())
  )
}

function table(list) {
  const lines = [
    `folder: ${fileCount + 1} files, ${mib(totalBytes)} MiB`,
    '',
    '| API rate limit | Step | Time | svc CPU | Peak RSS | API requests (429s) | PUTs | Sent |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ]
  for (const r of list) {
    lines.push(
      `| ${r.label} | ${r.step} | ${r.seconds.toFixed(2)} s | ${r.cpuSeconds.toFixed(2)} s | ${r.rssMiB.toFixed(1)} MiB | ${r.api} (${r.limited}) | ${r.puts} | ${r.note} |`,
    )
  }
  return lines.join('\n')
}
