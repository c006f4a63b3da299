#!/usr/bin/env node
// Part of `npm run lint`: the checked-in binding types must be what `npm run cf-typegen` makes of
// wrangler.toml and .dev.vars.example today. (`wrangler types --check` reports every file as out of
// date in wrangler 4.86, so the file is regenerated and compared.)
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

const file = new URL('../worker-configuration.d.ts', import.meta.url)
const before = readFileSync(file, 'utf8')
const run = spawnSync('npm', ['run', '-s', 'cf-typegen'], {
  env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
  encoding: 'utf8',
})
if (run.status !== 0) {
  console.error(run.stdout, run.stderr)
  process.exit(1)
}
if (readFileSync(file, 'utf8') !== before) {
  console.error('worker-configuration.d.ts was out of date: regenerated it; commit the change')
  process.exit(1)
}
console.log('✔ binding types match wrangler.toml')
