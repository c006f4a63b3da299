// The Worker's bundle as Cloudflare takes it (`wrangler deploy --dry-run`), and its budget: one
// place, read by the test that holds it (test/node/bundle-budget.test.ts) and by
// `npm run bench:startup`. Raise it only with the reason in BENCHMARKS.md (Start and bundle).
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

/** KiB of the bundle gzipped at level 9, as Cloudflare counts its size limit. */
export const BUNDLE_BUDGET_KIB = 370

const root = fileURLToPath(new URL('../..', import.meta.url))
const wrangler = join(root, 'node_modules/wrangler/bin/wrangler.js')

/** Builds the Worker as a deploy would and answers its size in bytes, minified and gzipped. */
export function bundleSize() {
  const work = mkdtempSync(join(tmpdir(), 'canvas-bundle-'))
  try {
    const result = spawnSync(
      process.execPath,
      [wrangler, 'deploy', '--dry-run', '--outdir', work],
      { cwd: root, env: { ...process.env, WRANGLER_SEND_METRICS: 'false' }, encoding: 'utf8' },
    )
    if (result.status !== 0) {
      throw new Error(`wrangler deploy --dry-run failed:\n${result.stdout}\n${result.stderr}`)
    }
    const bundle = readFileSync(join(work, 'index.js'))
    return { minified: bundle.byteLength, gzipped: gzipSync(bundle, { level: 9 }).byteLength }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
