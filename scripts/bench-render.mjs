#!/usr/bin/env node
// Renderer benchmark: every worst case of test/support/worst-cases.ts at the largest size a frame
// renders (5 MiB), through the same function the Worker's frames call, in Node (V8, as workerd).
// Prints the CPU time of each (the median and the worst of the runs after one warm-up) and the
// size of the HTML produced, which must stay within 8 MiB.
//   node scripts/bench-render.mjs [--runs 5] [--size-mib 5] [--only <text in the case name>]
import { build } from 'esbuild'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    'size-mib': { type: 'string', default: '5' },
    only: { type: 'string' },
  },
})
const runs = Number(values.runs)
const size = Number(values['size-mib']) * 2 ** 20

const work = mkdtempSync(join(tmpdir(), 'canvas-bench-render-'))
const bundle = join(work, 'render.mjs')
try {
  await build({
    stdin: {
      contents: `export { renderTextBody } from './src/render/body'
                 export { WORST_CASES } from './test/support/worst-cases'`,
      resolveDir: process.cwd(),
      loader: 'ts',
    },
    bundle: true,
    platform: 'neutral',
    format: 'esm',
    outfile: bundle,
    logLevel: 'error',
  })
  const { renderTextBody, WORST_CASES } = await import(pathToFileURL(bundle).href)
  const rows = []
  for (const c of WORST_CASES) {
    if (values.only && !c.name.includes(values.only)) continue
    const input = c.make(size)
    const times = []
    let bytes = 0
    for (let i = 0; i <= runs; i++) {
      const started = process.cpuUsage()
      const html = renderTextBody(c.renderer, c.ext, input, '#download')
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
  console.table(rows)
  const over = rows.filter((r) => Number(r['HTML MiB']) > 8)
  if (over.length) {
    console.error(`over 8 MiB: ${over.map((r) => r.case).join(', ')}`)
    process.exitCode = 1
  }
} finally {
  rmSync(work, { recursive: true, force: true })
}
