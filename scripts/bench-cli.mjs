#!/usr/bin/env node
// CLI benchmark: push and pull a large file through a local `npm run dev` service, printing peak
// RSS and MB/s of each, and `svc --version` wall time beside `node -e 0`.
//   node scripts/bench-cli.mjs [size in MiB, default 200]
import { spawnSync } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import {
  createReadStream,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
  closeSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createAccount, fetchRetry as fetch, startService } from './lib/local-service.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const sizeMiB = Number(process.argv[2] ?? 200)
const work = mkdtempSync(join(tmpdir(), 'canvas-bench-cli-'))
const svcPath = join(root, 'dist/svc.mjs')
const reporter = join(root, 'scripts/rss-report.mjs')

spawnSync(process.execPath, ['cli/build.mjs'], { cwd: root, stdio: 'inherit' })
const service = await startService(work, ['--var', 'SIGNUP:open'])
const url = service.url
try {
  const { key } = await createAccount(url, 'bench@example.com')
  const file = join(work, 'big.bin')
  writeRandom(file, sizeMiB)
  const env = { ...process.env, HOME: work, CANVAS_API_KEY: key, CANVAS_ENDPOINT: url }

  const push = measure(['push', file, '--save'], env)
  const id = push.stdout.split('\n')[0].trim()
  const out = join(work, 'pulled.bin')
  const pull = measure(['pull', id, '--output', out], env)
  const same = (await sha(file)) === (await sha(out))

  // curl moving the same number of bytes through the same kind of presigned URLs.
  const other = join(work, 'other.bin')
  writeRandom(other, sizeMiB)
  const curlPut = await curlUpload(url, key, other)
  const location = await (
    await fetch(`${url}/v1/canvases/${id}/content`, {
      headers: { Authorization: `Bearer ${key}` },
      redirect: 'manual',
    })
  ).headers.get('location')
  const curlGetStarted = performance.now()
  spawnSync('curl', ['-sS', '-o', join(work, 'curl.out'), location])
  const curlGet = (performance.now() - curlGetStarted) / 1000

  const version = median(10, () => time(process.execPath, [svcPath, '--version']))
  const bare = median(10, () => time(process.execPath, ['-e', '0']))

  console.log(`file: ${sizeMiB} MiB, bytes round-trip intact: ${same}`)
  console.log(
    `push: ${push.seconds.toFixed(2)} s, ${(sizeMiB / push.seconds).toFixed(1)} MiB/s, peak RSS ${push.rssMiB.toFixed(1)} MiB`,
  )
  console.log(
    `pull: ${pull.seconds.toFixed(2)} s, ${(sizeMiB / pull.seconds).toFixed(1)} MiB/s, peak RSS ${pull.rssMiB.toFixed(1)} MiB`,
  )
  console.log(
    `curl PUT: ${(sizeMiB / curlPut).toFixed(1)} MiB/s (svc push, hashing included, at ${((curlPut / push.seconds) * 100).toFixed(0)}% of it)`,
  )
  console.log(
    `curl GET: ${(sizeMiB / curlGet).toFixed(1)} MiB/s (svc pull at ${((curlGet / pull.seconds) * 100).toFixed(0)}% of it)`,
  )
  console.log(
    `svc --version: ${version.toFixed(1)} ms; node -e 0: ${bare.toFixed(1)} ms; ratio ${(version / bare).toFixed(2)}`,
  )
  if (!same) process.exitCode = 1
} finally {
  service.stop()
  rmSync(work, { recursive: true, force: true })
}

function measure(args, env) {
  const report = join(work, `rss-${args[0]}`)
  const started = performance.now()
  const result = spawnSync(process.execPath, ['--import', reporter, svcPath, ...args], {
    env: { ...env, RSS_REPORT: report },
    encoding: 'utf8',
  })
  const seconds = (performance.now() - started) / 1000
  if (result.status !== 0) throw new Error(`svc ${args[0]} failed: ${result.stderr}`)
  return { seconds, rssMiB: Number(readFileSync(report, 'utf8')) / 1024, stdout: result.stdout }
}

/** Presigns a file through the API and PUTs it with curl; returns the PUT's seconds. */
async function curlUpload(base, key, path) {
  const size = statSync(path).size
  const meta = { sha256: await sha(path), ext: 'bin', size, mime: 'application/octet-stream' }
  const presign = await (
    await fetch(`${base}/v1/upload/presign`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(meta),
    })
  ).json()
  const started = performance.now()
  const result = spawnSync(
    'curl',
    ['-sS', '-X', 'PUT', '-T', path, '-o', '/dev/null', '-w', '%{http_code}', presign.upload_url],
    { encoding: 'utf8' },
  )
  if (result.stdout !== '200') throw new Error(`curl PUT failed: ${result.stdout} ${result.stderr}`)
  return (performance.now() - started) / 1000
}

function time(command, args) {
  const started = performance.now()
  spawnSync(command, args, { stdio: 'ignore' })
  return performance.now() - started
}

function median(runs, fn) {
  const values = Array.from({ length: runs }, fn).sort((a, b) => a - b)
  return values[Math.floor(values.length / 2)]
}

function writeRandom(path, mib) {
  const fd = openSync(path, 'w')
  const chunk = randomBytes(1024 * 1024)
  for (let i = 0; i < mib; i++) {
    chunk.writeUInt32LE(i, 0)
    writeSync(fd, chunk)
  }
  closeSync(fd)
}

async function sha(path) {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path)) hash.update(chunk)
  return hash.digest('hex')
}
