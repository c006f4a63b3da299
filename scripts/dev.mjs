#!/usr/bin/env node
// `npm run dev`: the whole service locally. Generates the signing secrets (storage URLs, CSRF tokens,
// frame URLs) and the key of webhooks' secrets into .dev.vars when missing, applies the D1 migrations to the local database, then
// runs `wrangler dev` with the cron route enabled. Extra arguments go to wrangler dev (`npm run dev -- --port 8790`); --persist-to is
// also given to the migration step so both use the same local state.
import { spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, appendFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const wrangler = fileURLToPath(new URL('../node_modules/wrangler/bin/wrangler.js', import.meta.url))
const args = process.argv.slice(2)
const env = { ...process.env, WRANGLER_SEND_METRICS: 'false' }

ensureSecrets()

const persistAt = args.indexOf('--persist-to')
const persist = persistAt >= 0 ? ['--persist-to', args[persistAt + 1]] : []
const migrate = spawnSync(
  process.execPath,
  [wrangler, 'd1', 'migrations', 'apply', 'DB', '--local', ...persist],
  { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] },
)
if (migrate.status !== 0) {
  console.error('error: applying the D1 migrations failed')
  process.exit(migrate.status ?? 1)
}

const dev = spawn(process.execPath, [wrangler, 'dev', '--test-scheduled', ...args], {
  cwd: root,
  env,
  stdio: 'inherit',
})
// wrangler can linger after its workerd has stopped; give it five seconds, then end it.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    dev.kill(signal)
    setTimeout(() => dev.kill('SIGKILL'), 5000).unref()
  })
}
dev.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))

function ensureSecrets() {
  const file = new URL('../.dev.vars', import.meta.url)
  let current = existsSync(file) ? readFileSync(file, 'utf8') : ''
  const names = [
    'STORAGE_SIGNING_SECRET',
    'CSRF_SECRET',
    'FRAME_SIGNING_SECRET',
    'WEBHOOK_ENCRYPTION_KEY',
  ]
  for (const name of names) {
    if (new RegExp(`^${name}=.`, 'm').test(current)) continue
    const line = `${name}=${randomBytes(32).toString('hex')}\n`
    appendFileSync(file, (current && !current.endsWith('\n') ? '\n' : '') + line, { mode: 0o600 })
    current += line
    console.log(`generated ${name} into .dev.vars`)
  }
}
