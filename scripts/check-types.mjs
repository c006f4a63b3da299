#!/usr/bin/env node
// Part of `npm run lint`: the checked-in binding types must be what `npm run cf-typegen` makes of
// wrangler.jsonc and .dev.vars.example today.
import { spawnSync } from 'node:child_process'

const run = spawnSync('npm', ['run', '-s', 'cf-typegen', '--', '--check'], {
  env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
  encoding: 'utf8',
})
if (run.status !== 0) {
  console.error(run.stdout, run.stderr)
  console.error('worker-configuration.d.ts is out of date: run npm run cf-typegen and commit it')
  process.exit(1)
}
console.log('✔ binding types match wrangler.jsonc')
