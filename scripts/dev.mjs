#!/usr/bin/env node
// `npm run dev`: the whole service locally. Generates the signing secrets (storage URLs, CSRF
// tokens, frame URLs) and the key of webhooks' secrets into .dev.vars when missing, naming its
// other secrets there empty; applies the D1 migrations to the local database; then runs
// `wrangler dev` with the cron route enabled, its start-up ending with one line that says where to
// go (scripts/lib/dev-output.mjs). Extra arguments go to wrangler dev (`npm run dev -- --port
// 8790`); --persist-to is also given to the migration step so both use the same local state.
import { applyMigrations, ensureSecrets, setupArgs, startWranglerDev } from './lib/dev.mjs'
import { devOutputFilter, readyLine } from './lib/dev-output.mjs'

const args = process.argv.slice(2)

ensureSecrets()

const persistAt = args.indexOf('--persist-to')
const migrate = await applyMigrations(persistAt >= 0 ? args[persistAt + 1] : undefined, 'pipe')
if (migrate.code !== 0) {
  console.error(`${migrate.output}\nerror: applying the D1 migrations failed`)
  process.exit(migrate.code)
}
if (!migrate.output.includes('No migrations to apply'))
  console.log('The local database is migrated.')

const setup = setupArgs(args)
if (setup.token) {
  console.log(
    `Bound beyond this machine: create the first account at /signup?setup=${setup.token}` +
      " (this run's setup token; a request from the network cannot claim to be this machine).",
  )
}
const dev = startWranglerDev([...args, ...setup.args], { stdio: ['inherit', 'pipe', 'pipe'] })
for (const [from, to] of [
  [dev.stdout, process.stdout],
  [dev.stderr, process.stderr],
]) {
  const filter = devOutputFilter(
    (text) => to.write(text),
    (url) => readyLine(url).then((text) => console.log(text)),
  )
  from.setEncoding('utf8')
  from.on('data', (chunk) => filter.push(chunk))
  from.on('end', () => filter.end())
}
// wrangler can linger after its workerd has stopped; give it five seconds, then end it.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    dev.kill(signal)
    setTimeout(() => dev.kill('SIGKILL'), 5000).unref()
  })
}
dev.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
