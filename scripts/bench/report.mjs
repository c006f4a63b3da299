// The benchmark's Markdown: the throughput table, and the whole "Service throughput" section of
// BENCHMARKS.md, which it replaces in place.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'

const fmt = (n, digits = 0) => n.toFixed(digits)

export function throughputTable(rows) {
  return [
    '| Route | req/s | p50 ms | p99 ms | ratio to baseline | target | non-2xx | socket errors |',
    '| --- | ---: | ---: | ---: | --- | --- | ---: | ---: |',
    ...rows.map((r) => {
      const base = r.baseline === 'hono' ? 'bare Hono' : 'bare D1 read'
      const ratio = r.baseline ? `${fmt(r.ratio * 100)}% of ${base}` : '—'
      const target = r.target
        ? `≥ ${fmt(r.target * 100)}% ${r.ratio >= r.target ? '✅' : '❌'}`
        : '—'
      return `| ${r.name} | ${fmt(r.rps)} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${ratio} | ${target} | ${r.statusErrors} | ${r.socketErrors} |`
    }),
  ]
}

/** The target: list and get at 100,000 canvases within 1.3 times their p50 at 1,000. */
function scaleVerdict([small, large], runs) {
  const list = large.list / small.list
  const get = large.get / small.get
  const ok = list <= 1.3 && get <= 1.3
  return `At 100,000 canvases, list p50 is ${fmt(list, 2)}× and get p50 ${fmt(get, 2)}× their p50 at 1,000 (target ≤ 1.3× ${ok ? '✅' : '❌'}; medians of ${runs} runs taken in turns).`
}

export function writeReport(path, { rows, bundle, scale, sweep, runs, seconds, connections }) {
  const kib = (bytes) => fmt(bytes / 1024, 1)
  const lines = [
    `## Service throughput (${new Date().toISOString().slice(0, 10)})`,
    '',
    `\`npm run bench\` (\`scripts/bench/run.mjs\`, ${runs} interleaved runs of ${seconds} s per figure, wrk -t1 -c${connections}; median shown; a ratio is the median of each run's figure over the baseline measured beside it). Machine: ${cpus().length} cores, ${fmt(totalmem() / 2 ** 30)} GiB.`,
    '',
    ...throughputTable(rows),
    '',
    `Worker bundle: ${kib(bundle.bytes)} KiB minified, **${kib(bundle.gzip)} KiB gzipped** (target ≤ 150 KiB ${bundle.gzip / 1024 <= 150 ? '✅' : '❌'}).`,
    '',
    '| Canvases in the workspace | list p50 ms | get p50 ms | list at the last page p50 ms |',
    '| ---: | ---: | ---: | ---: |',
    ...scale.map(
      (s) =>
        `| ${s.count.toLocaleString('en')} | ${fmt(s.list, 2)} | ${fmt(s.get, 2)} | ${fmt(s.deep, 2)} |`,
    ),
    '',
    scaleVerdict(scale, runs),
    '',
    `Sweep of 10,000 expired canvases: ${sweep.runs} run(s), ${sweep.ms} ms in all (target: within 3 runs ${sweep.runs <= 3 ? '✅' : '❌'}); D1: ${sweep.roundTrips} round trips, ${sweep.statements} statements, ${sweep.rowsRead.toLocaleString('en')} rows read, ${sweep.rowsWritten.toLocaleString('en')} rows written (from the sweep's own summary line).`,
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
