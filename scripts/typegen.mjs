#!/usr/bin/env node
// `npm run cf-typegen`: wrangler's types of the bindings and vars (worker-configuration.d.ts), with
// the Durable Objects' classes typed from the source. wrangler names the module it uploads
// (dist/worker/index.js, built by scripts/bundle-worker.mjs), which has no types and does not
// exist before a build. `-- --check` asks wrangler whether the file is up to date (its hash of
// the config), as `npm run lint` does.
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const file = join(root, 'worker-configuration.d.ts')
const args = process.argv.slice(2)
const run = spawnSync(
  process.execPath,
  [
    join(root, 'node_modules/wrangler/bin/wrangler.js'),
    'types',
    '--env-file',
    '.dev.vars.example',
    '--include-runtime=false',
    '--strict-vars=false',
    ...args,
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, WRANGLER_SEND_METRICS: 'false' } },
)
if (run.status !== 0) process.exit(run.status ?? 1)
if (!args.includes('--check')) {
  const types = readFileSync(file, 'utf8')
  writeFileSync(file, types.replaceAll('import("./dist/worker/index")', 'import("./src/index")'))
}
