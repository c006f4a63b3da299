// The benchmark's Markdown: the throughput table, and the whole "Service throughput" section of
// BENCHMARKS.md, which it replaces in place. A figure or a section that could not be measured
// is shown as "not measured (why)" where its figures would be, and the rest as measured.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import { describe } from '../lib/retry.mjs'
import { BUNDLE_BUDGET_KIB, BUNDLE_TARGET_KIB } from '../lib/bundle.mjs'

const fmt = (n, digits = 0) => n.toFixed(digits)

/** A figure or section that could not be measured; `why` is an error or a sentence. */
export function notMeasured(why) {
  const text = why instanceof Error ? describe(why) : String(why)
  // One line, short, and nothing that would break a table's row.
  const short = text.split('\n')[0].replace(/\|/g, '\\|')
  return { notMeasured: short.length > 160 ? `${short.slice(0, 159)}…` : short }
}

export const isMeasured = (x) => !(x !== null && typeof x === 'object' && 'notMeasured' in x)

const missing = (x) => `not measured (${x.notMeasured})`

/** `n` with `digits`, or why it is missing. */
const figure = (n, digits) => (isMeasured(n) ? fmt(n, digits) : missing(n))

const SCALE_FIGURES = {
  list: 'first page',
  cursor: 'last page by cursor',
  cursorRatio: 'last / first',
  get: 'get',
  offset: 'last page by offset',
}

/** What the report shows as not measured, one line each: for the run's last word on stderr. */
export function notMeasuredIn({ rows, scale, sweep }) {
  const lines = []
  const note = (what, x) => !isMeasured(x) && lines.push(`${what}: ${x.notMeasured}`)
  if (!note('route throughput', rows)) {
    for (const r of rows) note(r.name, r)
  }
  if (!note('scaling', scale)) {
    for (const s of scale) {
      if (!note(`scaling at ${s.count}`, s)) {
        for (const [key, name] of Object.entries(SCALE_FIGURES))
          note(`scaling at ${s.count}, ${name}`, s[key])
      }
    }
  }
  note('sweep', sweep)
  return lines
}

export function throughputTable(rows, runs) {
  return [
    '| Route | req/s | p50 ms | p99 ms | ratio to baseline | target | non-2xx | socket errors |',
    '| --- | ---: | ---: | ---: | --- | --- | ---: | ---: |',
    ...rows.map((r) => throughputLine(r, runs)),
  ]
}

function throughputLine(r, runs) {
  const target = r.target ? `≥ ${fmt(r.target * 100)}%` : '—'
  if (!isMeasured(r)) return `| ${r.name} | ${missing(r)} | — | — | — | ${target} | — | — |`
  const name = r.runs < runs ? `${r.name} (${r.runs} of ${runs} runs)` : r.name
  const base = r.baseline === 'hono' ? 'bare Hono' : 'bare D1 read'
  let ratio = '—'
  let verdict = target
  if (r.baseline && r.ratio === undefined) ratio = 'not measured (no baseline run beside it)'
  else if (r.baseline) ratio = `${fmt(r.ratio * 100)}% of ${base}`
  if (r.target && r.ratio !== undefined) verdict += r.ratio >= r.target ? ' ✅' : ' ❌'
  return `| ${name} | ${fmt(r.rps)} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${ratio} | ${verdict} | ${r.statusErrors} | ${r.socketErrors} |`
}

// At 100,000 canvases, list and get (and the last page by cursor, over the first page) within
// 1.3 times.
const SCALE_TARGET = 1.3
const check = (ratio) => `${ratio <= SCALE_TARGET ? '✅' : '❌'}`

function scaleTable(scale) {
  return [
    '| Canvases in the workspace | list p50 ms (first page) | last page by cursor p50 ms | last / first | get p50 ms | last page by offset p50 ms |',
    '| ---: | ---: | ---: | ---: | ---: | ---: |',
    ...scale.map((s) => {
      const count = s.count.toLocaleString('en')
      if (!isMeasured(s)) return `| ${count} | ${missing(s)} | — | — | — | — |`
      let ratio = figure(s.cursorRatio, 2)
      if (isMeasured(s.cursorRatio)) {
        ratio += '×'
        if (s.count === 100000) ratio += ` ${check(s.cursorRatio)}`
      }
      return `| ${count} | ${figure(s.list, 2)} | ${figure(s.cursor, 2)} | ${ratio} | ${figure(s.get, 2)} | ${figure(s.offset, 2)} |`
    }),
  ]
}

/** The target: list and get at 100,000 canvases within 1.3 times their p50 at 1,000. */
function scaleVerdict(scale, runs) {
  const [small, large] = scale
  const needed = [small, large, small.list, large.list, small.get, large.get]
  const gap = needed.find((x) => !isMeasured(x))
  if (gap) return `List and get at 100,000 canvases against 1,000: ${missing(gap)}.`
  const list = large.list / small.list
  const get = large.get / small.get
  const ok = list <= SCALE_TARGET && get <= SCALE_TARGET
  return `At 100,000 canvases, list p50 is ${fmt(list, 2)}× and get p50 ${fmt(get, 2)}× their p50 at 1,000 (target ≤ ${SCALE_TARGET}× ${ok ? '✅' : '❌'}; medians of ${runs} runs taken in turns).`
}

/** The target: the last page by cursor at 100,000 canvases within 1.3 times the first page. */
function cursorVerdict(scale) {
  const large = scale.find((s) => s.count === 100000)
  const measured = isMeasured(large) && isMeasured(large.cursorRatio)
  const how =
    "The last page is the workspace's last full page (the list's default `limit`, as on the first page): its cursor found through the API alone, walking `next_cursor` 100 at a time from the first page, and the page checked to be the one `offset` reaches, with `next_cursor` null."
  if (!measured)
    return `${how} At 100,000 canvases, the last page by cursor against the first: ${missing(isMeasured(large) ? large.cursorRatio : large)}.`
  const offset = isMeasured(large.offset) && isMeasured(large.list) ? large.offset / large.list : 0
  const byOffset = offset ? ` By offset, the same page took ${fmt(offset, 2)}× the first page.` : ''
  return `${how} At 100,000 canvases (${large.total.toLocaleString('en')} in the list, last page at offset ${large.total - large.limit}), the last page by cursor has ${fmt(large.cursorRatio, 2)}× the first page's p50 (target ≤ ${SCALE_TARGET}× ${check(large.cursorRatio)}; the median of each run's ratio, the two measured back to back).${byOffset}`
}

function scaleSection(scale, runs) {
  if (!isMeasured(scale)) return [`List and get at 1,000 and 100,000 canvases: ${missing(scale)}.`]
  return [...scaleTable(scale), '', scaleVerdict(scale, runs), '', cursorVerdict(scale)]
}

function sweepLine(sweep) {
  if (!isMeasured(sweep)) return `Sweep of 10,000 expired canvases: ${missing(sweep)}.`
  const removed = sweep.canvases + sweep.files
  const perRow = sweep.rowsRead / Math.max(removed, 1)
  return `Sweep of 10,000 expired canvases: ${sweep.runs} run(s), ${sweep.ms} ms in all (target: within one run ${sweep.runs <= 1 ? '✅' : '❌'}); D1: ${sweep.roundTrips} round trips, ${sweep.statements} statements, ${sweep.rowsRead.toLocaleString('en')} rows read, ${sweep.rowsWritten.toLocaleString('en')} rows written for ${sweep.canvases.toLocaleString('en')} canvases and ${sweep.files.toLocaleString('en')} files removed: ${perRow.toFixed(2)} rows read each (target ≤ 9 ${perRow <= 9 ? '✅' : '❌'}; from the sweep's own summary lines).`
}

export function writeReport(path, { rows, bundle, scale, sweep, runs, seconds, connections }) {
  const kib = (bytes) => fmt(bytes / 1024, 1)
  const lines = [
    `## Service throughput (${new Date().toISOString().slice(0, 10)})`,
    '',
    `\`npm run bench\` (\`scripts/bench/run.mjs\`, ${runs} interleaved runs of ${seconds} s per figure, wrk -t1 -c${connections}; median shown; a ratio is the median of each run's figure over the baseline measured beside it). Machine: ${cpus().length} cores, ${fmt(totalmem() / 2 ** 30)} GiB.`,
    '',
    ...(isMeasured(rows) ? throughputTable(rows, runs) : [`Route throughput: ${missing(rows)}.`]),
    '',
    `Worker bundle: ${kib(bundle.bytes)} KiB minified, **${kib(bundle.gzip)} KiB gzipped** (target ≤ ${BUNDLE_TARGET_KIB} KiB ${bundle.gzip / 1024 <= BUNDLE_TARGET_KIB ? '✅' : '❌'}; the budget CI holds: ${BUNDLE_BUDGET_KIB} KiB).`,
    '',
    ...scaleSection(scale, runs),
    '',
    sweepLine(sweep),
    '',
    '',
  ]
  const report = lines.join('\n')
  console.log(report)
  const current = existsSync(path) ? readFileSync(path, 'utf8') : '# Benchmarks\n'
  const marker = '## Service throughput'
  const start = current.indexOf(marker)
  const end = start < 0 ? -1 : current.indexOf('\n## ', start + marker.length)
  const next =
    start < 0
      ? `${current.trimEnd()}\n\n${report}`
      : current.slice(0, start) + report + (end < 0 ? '' : current.slice(end + 1))
  writeFileSync(path, next)
}
