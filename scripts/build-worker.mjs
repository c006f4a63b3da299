#!/usr/bin/env node
// `wrangler deploy --dry-run` of the real config: the Worker built as a deploy builds it (its
// bindings checked, its modules written to a temporary folder and measured), with no account and
// no network. CI runs it, so a config or a module that would not deploy fails before any test.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { modulesSize } from './lib/bundle.mjs'

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
  const { minified, gzipped } = modulesSize(out)
  const kib = (n) => (n / 1024).toFixed(1)
  console.log(`✔ wrangler deploy --dry-run: ${kib(minified)} KiB, ${kib(gzipped)} KiB gzipped`)
} finally {
  rmSync(out, { recursive: true, force: true })
}
