// The Worker's modules as Cloudflare takes them (scripts/bundle-worker.mjs, uploaded as they are),
// and their budget: one place, read by the test that holds it (test/node/bundle-budget.test.ts)
// and by `npm run bench:startup`. Raise it only with the reason in BENCHMARKS.md (Start and bundle).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { bundleWorker } from '../bundle-worker.mjs'

/** KiB of the modules gzipped at level 9, as wrangler counts the upload against its limit. */
export const BUNDLE_BUDGET_KIB = 367
/** Where the budget is headed (BENCHMARKS.md): what a start within its time can afford. */
export const BUNDLE_TARGET_KIB = 250

/** Bytes of the modules under `dir`, minified, and gzipped together as one upload. */
export function modulesSize(dir) {
  const names = readdirSync(dir)
    .filter((file) => file.endsWith('.js'))
    .sort()
  const code = Buffer.concat(names.map((name) => readFileSync(join(dir, name))))
  return { minified: code.byteLength, gzipped: gzipSync(code, { level: 9 }).byteLength }
}

/**
 * Builds the Worker as a deploy would. Answers its size in bytes, minified and gzipped, and the
 * source files its start evaluates: those of the entry module and of the modules it imports
 * statically, not of those an `import()` loads.
 */
export async function bundleSize() {
  const work = mkdtempSync(join(tmpdir(), 'canvas-bundle-'))
  try {
    const meta = await bundleWorker({ outdir: work })
    return { ...modulesSize(work), atStart: staticallyReached(meta.outputs) }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

/** The inputs of the output modules that the entry reaches without an `import()`. */
function staticallyReached(outputs) {
  const entry = Object.keys(outputs).find((path) => outputs[path].entryPoint === 'src/index.ts')
  const reached = new Set([entry])
  const queue = [entry]
  while (queue.length > 0) {
    for (const { path, kind, external } of outputs[queue.pop()]?.imports ?? []) {
      if (kind === 'dynamic-import' || external || reached.has(path)) continue
      reached.add(path)
      queue.push(path)
    }
  }
  return [...new Set([...reached].flatMap((path) => Object.keys(outputs[path].inputs)))]
}
