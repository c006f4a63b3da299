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
export const BUNDLE_BUDGET_KIB = 353
/** Where the budget is headed (BENCHMARKS.md): what a start within its time can afford. */
export const BUNDLE_TARGET_KIB = 250

const root = fileURLToPath(new URL('../..', import.meta.url))
const wrangler = join(root, 'node_modules/wrangler/bin/wrangler.js')

/**
 * Builds the Worker as a deploy would. Answers its size in bytes, minified and gzipped, and the
 * modules its start evaluates: those the entry reaches by static imports, not by `import()`.
 */
export function bundleSize() {
  const work = mkdtempSync(join(tmpdir(), 'canvas-bundle-'))
  try {
    const meta = join(work, 'meta.json')
    const result = spawnSync(
      process.execPath,
      [wrangler, 'deploy', '--dry-run', '--outdir', work, '--metafile', meta],
      { cwd: root, env: { ...process.env, WRANGLER_SEND_METRICS: 'false' }, encoding: 'utf8' },
    )
    if (result.status !== 0) {
      throw new Error(`wrangler deploy --dry-run failed:\n${result.stdout}\n${result.stderr}`)
    }
    const bundle = readFileSync(join(work, 'index.js'))
    return {
      minified: bundle.byteLength,
      gzipped: gzipSync(bundle, { level: 9 }).byteLength,
      atStart: staticallyReached(JSON.parse(readFileSync(meta, 'utf8')).inputs),
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

/** The inputs of an esbuild metafile that src/index.ts reaches without an `import()`. */
function staticallyReached(inputs) {
  const entry = Object.keys(inputs).find((path) => path.endsWith('src/index.ts'))
  const reached = new Set([entry])
  const queue = [entry]
  while (queue.length > 0) {
    for (const { path, kind, external } of inputs[queue.pop()]?.imports ?? []) {
      if (kind === 'dynamic-import' || external || reached.has(path)) continue
      reached.add(path)
      queue.push(path)
    }
  }
  return [...reached]
}
