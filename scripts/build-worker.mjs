#!/usr/bin/env node
// `wrangler deploy --dry-run` of the real config: the Worker built as a deploy builds it (its
// bindings checked, the bundle written to a temporary folder and measured), with no account and
// no network. CI runs it, so a config or bundle that would not deploy fails before any test.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'

const out = mkdtempSync(join(tmpdir(), 'canvas-build-'))
try {
  const result = spawnSync('wrangler', ['deploy', '--dry-run', '--outdir', out], {
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  if (result.status !== 0) {
    console.error(result.stdout, result.stderr)
    console.error('error: wrangler deploy --dry-run failed: the Worker would not deploy')
    process.exit(1)
  }
  const bundle = readFileSync(join(out, 'index.js'))
  const kib = (n) => (n / 1024).toFixed(1)
  console.log(
    `✔ wrangler deploy --dry-run: ${kib(bundle.byteLength)} KiB, ${kib(gzipSync(bundle, { level: 9 }).byteLength)} KiB gzipped`,
  )
} finally {
  rmSync(out, { recursive: true, force: true })
}
