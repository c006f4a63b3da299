#!/usr/bin/env node
// `npm run dev`: the whole service locally. Generates the signing secrets (storage URLs, CSRF tokens,
// frame URLs) and the key of webhooks' secrets into .dev.vars when missing, applies the D1 migrations to the local database, then
// runs `wrangler dev` with the cron route enabled. Extra arguments go to wrangler dev (`npm run dev -- --port 8790`); --persist-to is
// also given to the migration step so both use the same local state.
import { applyMigrations, ensureSecrets, setupArgs, startWranglerDev } from './lib/dev.mjs'

const args = process.argv.slice(2)

ensureSecrets()

const persistAt = args.indexOf('--persist-to')
const migrate = await applyMigrations(persistAt >= 0 ? args[persistAt + 1] : undefined)
if (migrate.code !== 0) {
  console.error('error: applying the D1 migrations failed')
  process.exit(migrate.code)
}

const setup = setupArgs(args)
if (setup.token) {
  console.log(
    `Bound beyond this machine: create the first account at /signup?setup=${setup.token}` +
      " (this run's setup token; a request from the network cannot claim to be this machine).",
  )
}
const dev = startWranglerDev([...args, ...setup.args], { stdio: 'inherit' })
// wrangler can linger after its workerd has stopped; give it five seconds, then end it.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    dev.kill(signal)
    setTimeout(() => dev.kill('SIGKILL'), 5000).unref()
  })
}
dev.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
