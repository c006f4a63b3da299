#!/usr/bin/env node
// Renderer benchmark: every worst case of test/support/worst-cases.ts at the largest size a frame
// renders (5 MiB), and the largest notebooks (streamed in, as from storage), through the same function the Worker's frames call, in Node (V8, as workerd).
// Prints the CPU time of each (the median and the worst of the runs after one warm-up) and the
// size of the HTML produced, which must stay within 8 MiB. Then, unless --cpu-only: the built
// Worker on Miniflare's own server renders the costliest cases in a loop while /health is asked
// one request after another; its latency beside the same probe with nothing rendering shows how
// long a frame holds other requests up.
// The diff page's worst cases (DIFF_WORST_CASES) likewise: the CPU time of the diff in Node (and of
// the rendered view's merge of the same pair, as Markdown and as HTML: median / worst), then unless --cpu-only the CPU time workerd spends
// per request of `/c/:id/diff` on the built Worker (utime + stime from /proc over
// `--diff-requests` requests, after one warm-up).
//   node scripts/bench-render.mjs [--runs 5] [--size-mib 5] [--only <text in the case name>]
//     [--cpu-only] [--seconds 8] [--renderers 2] [--diff-requests 10]
import { build } from 'esbuild'
import { execSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { createAccount } from './lib/local-service.mjs'
import { startApp } from './lib/miniflare-service.mjs'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    'size-mib': { type: 'string', default: '5' },
    only: { type: 'string' },
    'cpu-only': { type: 'boolean', default: false },
    seconds: { type: 'string', default: '8' },
    renderers: { type: 'string', default: '2' },
    'diff-requests': { type: 'string', default: '10' },
  },
})
const runs = Number(values.runs)
const size = Number(values['size-mib']) * 2 ** 20

const tick = 1e6 / Number(execSync('getconf CLK_TCK')) // µs per clock tick
// /proc/<pid>/stat after the name: [11] and [12] are utime and stime, [1] the parent.
const stat = (pid) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')

const work = mkdtempSync(join(tmpdir(), 'canvas-bench-render-'))
const bundle = join(work, 'render.mjs')
try {
  await build({
    stdin: {
      contents: `export { renderNotebookBody, renderTextBody } from './src/render/body'
                 export { diffTexts } from './src/domain/diff/text'
                 export { mergedHtml, mergedPieces } from './src/domain/diff/rendered'
                 export { WORST_CASES, DIFF_WORST_CASES, NOTEBOOK_CASES } from './test/support/worst-cases'`,
      resolveDir: process.cwd(),
      loader: 'ts',
    },
    bundle: true,
    platform: 'neutral',
    // As wrangler resolves packages that name only a `main` (ansi_up).
    mainFields: ['module', 'main'],
    format: 'esm',
    outfile: bundle,
    logLevel: 'error',
  })
  const {
    renderNotebookBody,
    renderTextBody,
    diffTexts,
    mergedHtml,
    mergedPieces,
    WORST_CASES,
    DIFF_WORST_CASES,
    NOTEBOOK_CASES,
  } = await import(pathToFileURL(bundle).href)
  const rows = []
  for (const c of WORST_CASES) {
    if (values.only && !c.name.includes(values.only)) continue
    const input = c.make(size)
    const times = []
    let bytes = 0
    for (let i = 0; i <= runs; i++) {
      const started = process.cpuUsage()
      const { html } = await renderTextBody(c.renderer, c.ext, input, '#download')
      const used = process.cpuUsage(started)
      if (i > 0) times.push((used.user + used.system) / 1000)
      bytes = Buffer.byteLength(html)
    }
    times.sort((a, b) => a - b)
    rows.push({
      case: c.name,
      'input MiB': (Buffer.byteLength(input) / 2 ** 20).toFixed(1),
      'median ms': times[times.length >> 1].toFixed(0),
      'worst ms': times[times.length - 1].toFixed(0),
      'HTML MiB': (bytes / 2 ** 20).toFixed(2),
    })
  }
  for (const c of NOTEBOOK_CASES) {
    if (values.only && !c.name.includes(values.only)) continue
    rows.push(await notebookRow(renderNotebookBody, c))
  }
  if (rows.length) console.table(rows)
  const over = rows.filter((r) => Number(r['HTML MiB']) > 8)
  if (over.length) {
    console.error(`over 8 MiB: ${over.map((r) => r.case).join(', ')}`)
    process.exitCode = 1
  }
  const diffCases = DIFF_WORST_CASES.filter((c) => !values.only || c.name.includes(values.only))
  const diffRows = []
  for (const c of diffCases) {
    const [before, after] = c.make()
    const lines = cpuOf(() => diffTexts(before, after))
    // The rendered view's merge of the same pair (the diff page's frame).
    const merged = cpuOf(() => mergedPieces(before, after))
    const html = cpuOf(() => mergedHtml(before, after))
    diffRows.push({
      case: c.name,
      'median ms': lines.median,
      'worst ms': lines.worst,
      result: lines.result
        ? `${lines.result.added} added, ${lines.result.removed} removed`
        : 'too different',
      'Markdown view ms': `${merged.median} / ${merged.worst}`,
      'HTML view ms': `${html.median} / ${html.worst}${html.result ? '' : ' (not shown)'}`,
    })
  }
  if (diffRows.length) console.table(diffRows)
  if (!values['cpu-only']) {
    // Of the text files' cases: a notebook of 50 MiB is more than a multipart publish takes.
    const costliest = rows
      .filter((r) => WORST_CASES.some((c) => c.name === r.case))
      .sort((a, b) => b['worst ms'] - a['worst ms'])
      .slice(0, 3)
    const cases = costliest.map((r) => WORST_CASES.find((c) => c.name === r.case))
    if (cases.length) await blocking(cases.map((c) => ({ ...c, input: c.make(size) })))
    if (diffCases.length) await diffPages(diffCases)
  }
} finally {
  rmSync(work, { recursive: true, force: true })
}

/**
 * A notebook as a frame reads it: streamed in from storage in chunks of 1 MiB (R2's are smaller),
 * the parser stopping where the frame's budget ends.
 */
async function notebookRow(renderNotebookBody, c) {
  const bytes = new TextEncoder().encode(c.make())
  const times = []
  let html = ''
  for (let i = 0; i <= runs; i++) {
    const chunks = (function* () {
      for (let at = 0; at < bytes.length; at += 2 ** 20) yield bytes.subarray(at, at + 2 ** 20)
    })()
    const started = process.cpuUsage()
    ;({ html } = await renderNotebookBody({ chunks, language: 'python' }, '#download'))
    const used = process.cpuUsage(started)
    if (i > 0) times.push((used.user + used.system) / 1000)
  }
  times.sort((a, b) => a - b)
  return {
    case: c.name,
    'input MiB': (bytes.length / 2 ** 20).toFixed(1),
    'median ms': times[times.length >> 1].toFixed(0),
    'worst ms': times[times.length - 1].toFixed(0),
    'HTML MiB': (Buffer.byteLength(html) / 2 ** 20).toFixed(2),
  }
}

/** /health latency, sequential probes, while `renderers` clients load the frames in a loop. */
async function blocking(cases) {
  const seconds = Number(values.seconds)
  const app = await startApp(join(work, 'service'))
  try {
    const { key, cookie } = await createAccount(app.url, 'bench@example.com')
    const frames = []
    for (const c of cases) {
      const form = new FormData()
      form.append('file', new Blob([c.input]), `worst.${c.ext}`)
      form.append('permanent', 'true')
      const created = await fetch(`${app.url}/v1/canvases`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}` },
        body: form,
      })
      if (created.status !== 201)
        throw new Error(`create: ${created.status} ${await created.text()}`)
      const { canvas_id } = await created.json()
      const page = await (
        await fetch(`${app.url}/c/${canvas_id}`, { headers: { Cookie: cookie } })
      ).text()
      frames.push({
        name: c.name,
        src: /<iframe src="([^"]+)"/.exec(page)[1].replace(/&amp;/g, '&'),
      })
    }
    const idle = await probe(app.url, seconds / 2)
    const frameTimes = []
    let stop = false
    const loops = Array.from({ length: Number(values.renderers) }, async (_, i) => {
      for (let n = i; !stop; n++) {
        const frame = frames[n % frames.length]
        const started = performance.now()
        const res = await fetch(frame.src)
        await res.arrayBuffer()
        if (res.status !== 200) throw new Error(`frame ${frame.name}: ${res.status}`)
        frameTimes.push(performance.now() - started)
      }
    })
    const busy = await probe(app.url, seconds)
    stop = true
    await Promise.all(loops)
    const row = (name, t) => ({
      what: name,
      requests: t.length,
      'p50 ms': pct(t, 0.5).toFixed(1),
      'p95 ms': pct(t, 0.95).toFixed(1),
      'max ms': pct(t, 1).toFixed(1),
    })
    console.log(
      `\n/health while ${values.renderers} clients render: ${frames.map((f) => f.name).join('; ')}`,
    )
    console.table([
      row('/health, nothing rendering', idle),
      row('/health, frames rendering', busy),
      row('the frames themselves', frameTimes),
    ])
  } finally {
    await app.stop()
  }
}

/** The median and the worst CPU time of `run` over the runs after a warm-up, and its result. */
function cpuOf(run) {
  const times = []
  let result = null
  for (let i = 0; i <= runs; i++) {
    const started = process.cpuUsage()
    result = run()
    const used = process.cpuUsage(started)
    if (i > 0) times.push((used.user + used.system) / 1000)
  }
  times.sort((a, b) => a - b)
  const ms = (t) => t.toFixed(0)
  return { median: ms(times[times.length >> 1]), worst: ms(times[times.length - 1]), result }
}

/** workerd's CPU time per request of the diff page, each case's two versions in one canvas. */
async function diffPages(cases) {
  const requests = Number(values['diff-requests'])
  const app = await startApp(join(work, 'diff-service'))
  try {
    const { key, cookie } = await createAccount(app.url, 'bench-diff@example.com')
    const rows = []
    for (const c of cases) {
      const [before, after] = c.make()
      const send = async (method, path, text, expected) => {
        const form = new FormData()
        form.append('file', new Blob([text]), 'worst.txt')
        if (method === 'POST') form.append('permanent', 'true')
        const res = await fetch(`${app.url}${path}`, {
          method,
          headers: { Authorization: `Bearer ${key}` },
          body: form,
        })
        if (res.status !== expected) throw new Error(`${method}: ${res.status} ${await res.text()}`)
        return res.json()
      }
      const { canvas_id } = await send('POST', '/v1/canvases', before, 201)
      await send('PATCH', `/v1/canvases/${canvas_id}`, after, 200)
      const page = async () => {
        const res = await fetch(`${app.url}/c/${canvas_id}/diff?from=1&to=2`, {
          headers: { Cookie: cookie },
        })
        const html = await res.text()
        if (res.status !== 200) throw new Error(`diff page: ${res.status} ${html.slice(0, 300)}`)
        return html
      }
      const html = await page()
      const started = workerdCpu()
      for (let i = 0; i < requests; i++) await page()
      const perRequest = (workerdCpu() - started) / requests / 1000
      rows.push({
        case: c.name,
        'CPU ms per request': perRequest.toFixed(0),
        page: /differ too much/.test(html) ? 'too different' : 'the changes',
      })
    }
    console.log(`\n/c/:id/diff on the built Worker, ${requests} requests a case`)
    console.table(rows)
  } finally {
    await app.stop()
  }
}

/** µs of CPU used so far by the workerd processes this script started (Miniflare's children). */
function workerdCpu() {
  let sum = 0
  for (const pid of readdirSync('/proc')) {
    try {
      const fields = stat(pid)
      if (readFileSync(`/proc/${pid}/comm`, 'utf8') !== 'workerd\n') continue
      if (fields[1] !== `${process.pid}`) continue
      sum += (Number(fields[11]) + Number(fields[12])) * tick
    } catch {
      // Not a process, or one that just ended.
    }
  }
  return sum
}

async function probe(url, seconds) {
  const times = []
  const end = performance.now() + seconds * 1000
  while (performance.now() < end) {
    const started = performance.now()
    const res = await fetch(`${url}/health`)
    await res.arrayBuffer()
    times.push(performance.now() - started)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return times
}

function pct(values, p) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]
}
