// The built Worker served by Miniflare's own HTTP server on 127.0.0.1, for benchmarks: unlike
// `wrangler dev`, no proxy Worker stands between the client and the app, to cap throughput or
// refuse large request bodies.
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { convertV4MiniflareOptions, Miniflare } from 'miniflare'
import { freePort } from './local-service.mjs'
import { modulesSize } from './bundle.mjs'
import { describe, isTransient, retry } from './retry.mjs'

const root = fileURLToPath(new URL('../..', import.meta.url))

/**
 * `wrangler deploy --dry-run`: the exact modules a deploy would upload, written to `outdir`.
 * Answers the entry's path and their size (`bytes`, and `gzip` as the upload counts it).
 */
export function buildWorker(outdir) {
  const result = spawnSync(
    process.execPath,
    ['node_modules/wrangler/bin/wrangler.js', 'deploy', '--dry-run', '--outdir', outdir],
    { cwd: root, encoding: 'utf8', env: { ...process.env, WRANGLER_SEND_METRICS: 'false' } },
  )
  if (result.status !== 0) throw new Error(`wrangler build failed: ${result.stderr}`)
  const { minified, gzipped } = modulesSize(outdir)
  return { path: join(outdir, 'index.js'), bytes: minified, gzip: gzipped }
}

/**
 * Miniflare options for the app as wrangler.jsonc binds it, its D1 and R2 state kept under
 * `work`. No rate-limit bindings: Miniflare 5 simulates each limit's counter in a Durable Object
 * that writes SQLite to disk on every request, a cost the deployed limiter does not have, and it
 * would be what a benchmark measures; without a binding the app asks no limiter at all.
 */
export function appOptions(work, bundlePath, bindings = {}) {
  return {
    // The entry and every module beside it: the ones it imports on demand too.
    modules: modulesOf(bundlePath),
    modulesRoot: dirname(bundlePath),
    compatibilityDate: '2026-04-01',
    compatibilityFlags: ['nodejs_compat'],
    d1Databases: { DB: 'bench-db' },
    r2Buckets: ['BUCKET'],
    durableObjects: { LIVE: { className: 'CanvasLive', useSQLite: true } },
    bindings: {
      SIGNUP: 'open',
      STORAGE_SIGNING_SECRET: 'bench-storage-signing-secret-0123456789',
      CSRF_SECRET: 'bench-csrf-secret-0123456789abcdef01234567',
      FRAME_SIGNING_SECRET: 'bench-frame-signing-secret-0123456789abcdef',
      ...bindings,
    },
    d1Persist: join(work, 'd1'),
    r2Persist: join(work, 'r2'),
    durableObjectsPersist: join(work, 'do'),
  }
}

/**
 * Starts Miniflare on a free 127.0.0.1 port; the caller disposes of `mf`. Another process may
 * take the port between its choice and Miniflare's listen: then another port is tried.
 */
export function serve(options) {
  const portTaken = (err) => /EADDRINUSE|address already in use/i.test(describe(err))
  return retry(
    'starting Miniflare',
    async () => {
      const port = await freePort()
      // The options keep the shape Miniflare 4 took, which Miniflare 5 converts.
      const mf = new Miniflare(convertV4MiniflareOptions({ ...options, host: '127.0.0.1', port }))
      try {
        const url = (await mf.ready).toString().replace(/\/$/, '')
        return { mf, url }
      } catch (err) {
        await mf.dispose().catch((e) => console.error(`disposing of a failed Miniflare: ${e}`))
        throw err
      }
    },
    { tries: 3, retryable: (err) => portTaken(err) || isTransient(err) },
  )
}

/**
 * Applies drizzle/*.sql to the `DB` binding, statement by statement, each retried when the
 * binding's socket fails (isTransient).
 */
export async function migrate(mf) {
  const dir = join(root, 'drizzle')
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()) {
    const sql = readFileSync(join(dir, file), 'utf8')
    // One exec of a whole Drizzle file fails in Miniflare: run it statement by statement.
    for (const statement of sql.split('--> statement-breakpoint')) {
      if (!statement.trim()) continue
      await retry(`migration ${file}`, async (n) => {
        try {
          await (await mf.getD1Database('DB')).prepare(statement).run()
        } catch (err) {
          // A try whose answer was lost may have applied the statement: its retry finds it done.
          if (n > 1 && /already exists|duplicate column/i.test(describe(err))) return
          throw err
        }
      })
    }
  }
}

/** The whole app, built, served and migrated, with its state under `work`. */
export async function startApp(work, bindings = {}) {
  const bundle = buildWorker(join(work, 'worker'))
  const app = await serve(appOptions(work, bundle.path, bindings))
  try {
    await migrate(app.mf)
  } catch (err) {
    await app.mf.dispose()
    throw err
  }
  return { ...app, bundle, stop: () => app.mf.dispose() }
}

/** The Worker's modules for Miniflare: the entry first, then the others in its folder. */
function modulesOf(entry) {
  const dir = dirname(entry)
  const others = readdirSync(dir).filter((f) => f.endsWith('.js') && join(dir, f) !== entry)
  return [entry, ...others.map((f) => join(dir, f))].map((path) => ({ type: 'ESModule', path }))
}
