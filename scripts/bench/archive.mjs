#!/usr/bin/env node
// A site's zip download and the Worker's memory: the built Worker served by Miniflare (as the other
// benchmarks serve it), a site of many files made through the upload flow (presign, PUT, finalize),
// then `GET /v1/canvases/:id/versions/1/archive` read through HTTP into a hash and a streaming zip
// check, while workerd's RSS is sampled every 50 ms and its kernel peak (VmHWM, reset before each
// download) read after. The first download makes the archive and stores it; the later runs are the
// stored object (`--runs 10` for the first against the 2nd..10th). For contrast, one file of the
// same size from its signed storage URL.
//   npm run bench:archive -- [--items 1000] [--size-kib 200] [--runs 3] [--concurrency 16]
//     [--skip-single: no single-file contrast]
import { spawnSync } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { parseArgs } from 'node:util'
import { crc32 } from 'node:zlib'
import { createAccount, fetchRetry } from '../lib/local-service.mjs'
import { startApp } from '../lib/miniflare-service.mjs'
import { checkZip } from './zip-check.mjs'

const { values } = parseArgs({
  options: {
    items: { type: 'string', default: '1000' },
    'size-kib': { type: 'string', default: '200' },
    runs: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '16' },
    'skip-single': { type: 'boolean', default: false },
  },
})
const ITEMS = Number(values.items)
const SIZE = Number(values['size-kib']) * 1024
const RUNS = Number(values.runs)
const TOTAL = ITEMS * SIZE
const TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout)
process.env.WRANGLER_SEND_METRICS = 'false'

const work = mkdtempSync(join(tmpdir(), 'canvas-archive-bench-'))
const earlier = new Set(workerds())
const app = await startApp(work)
try {
  const [pid, ...others] = workerds().filter((p) => !earlier.has(p))
  if (!pid || others.length) throw new Error('expected one workerd child process to measure')
  const idle = rss(pid)
  const { key } = await createAccount(app.url, 'bench@example.com')
  const auth = { Authorization: `Bearer ${key}` }

  let started = performance.now()
  const files = await uploadSite(auth)
  const site = await createCanvas(auth, {
    title: 'archive bench',
    items: files.map(({ path, fileId }) => ({ path, file_id: fileId })),
    permanent: true,
  })
  console.log(
    `site: ${ITEMS} files of ${SIZE / 1024} KiB (${mb(TOTAL)} MB) uploaded in ${elapsed(started)} s; ` +
      `workerd RSS ${mib(idle)} MiB idle, ${mib(rss(pid))} MiB after the uploads`,
  )
  // Per entry: a local header (30), a data descriptor (16), a central header (46) and its name
  // twice (ASCII here); then the end record (22).
  const expectedBytes = files.reduce((sum, f) => sum + 30 + 16 + 46 + 2 * f.path.length, 22) + TOTAL
  let single = null
  if (!values['skip-single']) {
    started = performance.now()
    single = await uploadSingle(auth)
    single.canvasId = await createCanvas(auth, {
      title: 'one.bin',
      file_id: single.fileId,
      ext: 'bin',
      permanent: true,
    })
    console.log(`single file: ${mb(TOTAL)} MB uploaded in ${elapsed(started)} s`)
  }

  const results = []
  for (let run = 1; run <= RUNS; run++) {
    const url = `${app.url}/v1/canvases/${site}/versions/1/archive`
    const archive = await download(pid, url, auth, (chunks) => checkZip(chunks, files))
    if (archive.bytes !== expectedBytes) {
      throw new Error(`archive: ${archive.bytes} bytes, expected ${expectedBytes}`)
    }
    results.push({ run, what: `archive (${archive.result} entries checked)`, ...archive })
    if (single) {
      const location = await signedLocation(auth, single.canvasId)
      const one = await download(pid, location, {}, async (chunks) => {
        for await (const chunk of chunks) void chunk
      })
      if (one.sha256 !== single.sha256) throw new Error('single file: sha256 differs')
      results.push({ run, what: 'one file, signed URL (sha256 verified)', ...one })
    }
  }
  report(results)
} finally {
  await app.stop()
  rmSync(work, { recursive: true, force: true })
}

/** The files of the site, in a few folders, uploaded `--concurrency` at a time. */
async function uploadSite(auth) {
  const files = []
  let next = 0
  const worker = async () => {
    while (next < ITEMS) {
      const i = next++
      const path = `${['css', 'img', 'js', 'data', 'media'][i % 5]}/f${String(i).padStart(5, '0')}.bin`
      const bytes = randomBytes(SIZE)
      const sha256 = createHash('sha256').update(bytes).digest('hex')
      const fileId = await upload(auth, { sha256, size: SIZE }, () => [bytes])
      files.push({ path, fileId, size: SIZE, crc: crc32(bytes) })
    }
  }
  await Promise.all(Array.from({ length: Number(values.concurrency) }, worker))
  return files
}

/** One file of the site's whole size, made twice in 1 MiB chunks: to hash it, then to send it. */
async function uploadSingle(auth) {
  const block = randomBytes(2 ** 20)
  function* chunks() {
    for (let at = 0, i = 0; at < TOTAL; at += block.length, i++) {
      // A copy each: the stream may hold chunks a while before it writes them.
      const chunk = Buffer.from(block.subarray(0, Math.min(block.length, TOTAL - at)))
      chunk.writeUInt32LE(i, 0)
      yield chunk
    }
  }
  const hash = createHash('sha256')
  for (const chunk of chunks()) hash.update(chunk)
  const sha256 = hash.digest('hex')
  return { sha256, fileId: await upload(auth, { sha256, size: TOTAL }, chunks) }
}

/**
 * Presign, PUT unless the bytes are there already, finalize; returns the file_id. A PUT whose
 * socket was reset (an idle keep-alive socket the server had closed) is tried once more from the
 * presign, which says whether the bytes arrived after all.
 */
async function upload(auth, { sha256, size }, chunks, retry = true) {
  const body = { sha256, ext: 'bin', size, mime: 'application/octet-stream' }
  const presign = await api(auth, '/v1/upload/presign', body)
  try {
    if (!presign.exists) await put(presign.upload_url, presign.headers, size, chunks())
  } catch (err) {
    if (!retry || !['ECONNRESET', 'EPIPE'].includes(err.code)) throw err
    return upload(auth, { sha256, size }, chunks, false)
  }
  await api(auth, '/v1/upload/finalize', { ...body, file_id: presign.file_id })
  return presign.file_id
}

/** node:http, so that a body of many chunks goes with its Content-Length, not chunked. */
function put(url, headers, size, chunks) {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'PUT', headers: { ...headers, 'Content-Length': size } },
      (res) => {
        let text = ''
        res.on('data', (d) => (text += d))
        res.on('end', () =>
          res.statusCode < 300 ? resolve() : reject(new Error(`PUT: ${res.statusCode} ${text}`)),
        )
      },
    )
    req.on('error', reject)
    Readable.from(chunks).pipe(req)
  })
}

async function createCanvas(auth, body) {
  return (await api(auth, '/v1/canvases', body)).canvas_id
}

async function api(auth, path, body) {
  const res = await fetchRetry(app.url + path, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (res.status >= 400) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`)
  return res.json()
}

async function signedLocation(auth, canvasId) {
  const res = await fetchRetry(`${app.url}/v1/canvases/${canvasId}/content`, {
    headers: auth,
    redirect: 'manual',
  })
  if (res.status !== 302) throw new Error(`content: HTTP ${res.status} ${await res.text()}`)
  return res.headers.get('location')
}

/**
 * GETs `url` and hands the body's chunks (each hashed and counted on the way) to `consume`, while
 * sampling workerd's RSS; its kernel peak counter is reset just before the request.
 */
async function download(pid, url, headers, consume) {
  // A moment for workerd to finish with the last download (and the page cache to settle).
  await new Promise((r) => setTimeout(r, 1000))
  const { VmRSS: before, RssAnon: anonBefore } = status(pid)
  writeFileSync(`/proc/${pid}/clear_refs`, '5')
  const cpuBefore = cpu(pid)
  let sampled = before
  const sampler = setInterval(() => (sampled = Math.max(sampled, rss(pid))), 50)
  try {
    const started = performance.now()
    const res = await fetchRetry(url, { headers })
    if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status} ${await res.text()}`)
    const firstByte = performance.now() - started
    const hash = createHash('sha256')
    let bytes = 0
    async function* body() {
      for await (const chunk of res.body) {
        hash.update(chunk)
        bytes += chunk.length
        yield chunk
      }
    }
    const result = await consume(body())
    const seconds = (performance.now() - started) / 1000
    sampled = Math.max(sampled, rss(pid))
    const { VmHWM: peak, RssAnon: anonAfter } = status(pid)
    const cpuSeconds = cpu(pid) - cpuBefore
    const figures = { result, bytes, firstByte, seconds, cpuSeconds, sha256: hash.digest('hex') }
    return { ...figures, before, sampled, peak, anonBefore, anonAfter }
  } finally {
    clearInterval(sampler)
  }
}

function report(results) {
  console.log(
    '| Run | Download | MB | First byte | Time | MB/s | workerd CPU | workerd RSS before | peak (sampled / VmHWM) | growth | anonymous RSS before → after |',
  )
  console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
  for (const r of results) {
    const peak = Math.max(r.sampled, r.peak)
    console.log(
      `| ${r.run} | ${r.what} | ${mb(r.bytes)} | ${r.firstByte.toFixed(0)} ms | ${r.seconds.toFixed(2)} s | ` +
        `${mb(r.bytes / r.seconds)} | ${r.cpuSeconds.toFixed(2)} s | ${mib(r.before)} MiB | ${mib(r.sampled)} / ${mib(r.peak)} MiB | ` +
        `+${mib(peak - r.before)} MiB | ${mib(r.anonBefore)} → ${mib(r.anonAfter)} MiB |`,
    )
  }
  const growth = (list) => Math.max(...list.map((r) => Math.max(r.sampled, r.peak) - r.before))
  const archives = results.filter((r) => r.what.startsWith('archive'))
  // The first download makes the archive and stores it; the later ones are the stored object.
  if (archives.length > 1) {
    const later = archives.slice(1).map((r) => r.cpuSeconds)
    const median = later.sort((a, b) => a - b)[Math.floor(later.length / 2)]
    console.log(
      `workerd CPU per archive download: the first (made and stored) ${archives[0].cpuSeconds.toFixed(2)} s; ` +
        `downloads 2..${archives.length} (from storage) median ${median.toFixed(2)} s, ` +
        `highest ${Math.max(...later).toFixed(2)} s; ratio ${(median / archives[0].cpuSeconds).toFixed(3)}`,
    )
  }
  const singles = results.filter((r) => !r.what.startsWith('archive'))
  console.log(
    `workerd RSS growth during a download, the highest of ${RUNS} runs: archive +${mib(growth(archives))} MiB ` +
      `for ${mib(archives[0].bytes)} MiB of zip` +
      (singles.length ? `; one file +${mib(growth(singles))} MiB` : ''),
  )
}

// The workerd processes this script started (Miniflare spawns them as its children).
function workerds() {
  return readdirSync('/proc').filter((p) => {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')
      return stat[0].endsWith('(workerd') && stat[1].split(' ')[1] === `${process.pid}`
    } catch {
      return false
    }
  })
}

/** /proc/<pid>/status's memory lines (VmRSS, VmHWM, RssAnon, …), in bytes. */
function status(pid) {
  const lines = readFileSync(`/proc/${pid}/status`, 'utf8').matchAll(
    /^((?:Vm|Rss)\w+):\s+(\d+) kB$/gm,
  )
  return Object.fromEntries([...lines].map(([, name, kib]) => [name, Number(kib) * 1024]))
}

// /proc/<pid>/stat after the name: [11] and [12] are utime and stime, in clock ticks.
function cpu(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(stat[11]) + Number(stat[12])) / TICKS
}

function rss(pid) {
  return status(pid).VmRSS
}

function elapsed(since) {
  return ((performance.now() - since) / 1000).toFixed(1)
}

function mb(n) {
  return (n / 1e6).toFixed(1)
}

function mib(n) {
  return (n / 2 ** 20).toFixed(1)
}
