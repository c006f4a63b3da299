// The steps of `npm run dev` (scripts/dev.mjs), apart so that the node tests take the same ones:
// they apply the migrations once, to a local state each of their servers starts from a copy of.
import { spawn } from 'node:child_process'
import {
  appendFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))
const wrangler = fileURLToPath(
  new URL('../../node_modules/wrangler/bin/wrangler.js', import.meta.url),
)
const env = () => ({ ...process.env, WRANGLER_SEND_METRICS: 'false' })

const SECRETS = [
  'STORAGE_SIGNING_SECRET',
  'CSRF_SECRET',
  'FRAME_SIGNING_SECRET',
  'WEBHOOK_ENCRYPTION_KEY',
]

/**
 * Generates the signing secrets and the key of webhooks' secrets into .dev.vars when missing, and
 * names every other variable of .dev.vars.example there, empty (unset): wrangler dev compares the
 * types it would make of .dev.vars with the checked-in ones, made of the example, and says they
 * might be out of date when the names differ.
 */
export function ensureSecrets(file = new URL('../../.dev.vars', import.meta.url)) {
  const example = readFileSync(new URL('../../.dev.vars.example', import.meta.url), 'utf8')
  const names = Array.from(example.matchAll(/^([A-Z][A-Z0-9_]*)=/gm), (m) => m[1])
  let current = existsSync(file) ? readFileSync(file, 'utf8') : ''
  for (const name of new Set([...SECRETS, ...names])) {
    const secret = SECRETS.includes(name)
    if (new RegExp(`^${name}=${secret ? '.' : ''}`, 'm').test(current)) continue
    const line = `${name}=${secret ? randomBytes(32).toString('hex') : ''}\n`
    appendFileSync(file, (current && !current.endsWith('\n') ? '\n' : '') + line, { mode: 0o600 })
    current += line
    if (secret) console.log(`generated ${name} into .dev.vars`)
  }
}

/**
 * Applies the D1 migrations to the local database (the one under `persistTo`, when given);
 * resolves to wrangler's exit code and what it printed, unless `stdio` is 'inherit'.
 */
export function applyMigrations(persistTo, stdio = 'inherit') {
  const persist = persistTo === undefined ? [] : ['--persist-to', persistTo]
  return run(['d1', 'migrations', 'apply', 'DB', '--local', ...persist], stdio)
}

/**
 * The D1 migrations applied to a new local state (under `persistTo`) in one `wrangler d1 execute`:
 * each file in order, and its name recorded in wrangler's table as `d1 migrations apply` records it,
 * so that wrangler finds nothing left to apply. For the tests' fresh states only: `apply` starts a
 * local runtime for every file, which a new state with every migration to apply pays over and
 * over (BENCHMARKS.md, the test suite). Resolves as applyMigrations does.
 */
export function applyMigrationsAtOnce(persistTo) {
  const dir = join(root, 'drizzle')
  const names = readdirSync(dir)
    .filter((name) => name.endsWith('.sql'))
    .sort()
  const sql = [
    'CREATE TABLE IF NOT EXISTS d1_migrations(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL);',
    ...names.flatMap((name) => [
      readFileSync(join(dir, name), 'utf8'),
      `INSERT INTO d1_migrations (name) VALUES ('${name}');`,
    ]),
  ].join('\n')
  const file = join(persistTo, 'migrations.sql')
  writeFileSync(file, sql)
  const args = ['d1', 'execute', 'DB', '--local', '--persist-to', persistTo, '--file', file]
  return run(args, 'pipe').finally(() => rmSync(file, { force: true }))
}

/** What wrangler says is left to apply to the local state under `persistTo`. */
export function listMigrations(persistTo) {
  return run(['d1', 'migrations', 'list', 'DB', '--local', '--persist-to', persistTo], 'pipe')
}

/** Runs wrangler with `args`; resolves to its exit code and what it printed (unless inherited). */
function run(args, stdio) {
  const child = spawn(process.execPath, [wrangler, ...args], {
    cwd: root,
    env: env(),
    stdio: ['ignore', stdio, stdio],
  })
  let output = ''
  child.stdout?.on('data', (d) => (output += d))
  child.stderr?.on('data', (d) => (output += d))
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }))
  })
}

/** The address `--ip` binds wrangler dev to, when given (wrangler.jsonc's is 127.0.0.1). */
export function boundAddress(args) {
  const at = args.findIndex((arg) => arg === '--ip' || arg.startsWith('--ip='))
  if (at === -1) return undefined
  return args[at].startsWith('--ip=') ? args[at].slice('--ip='.length) : args[at + 1]
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1|\[::1\])$/

/**
 * The arguments that keep a server bound beyond this machine (`--ip 0.0.0.0`) from being set up by
 * whoever reaches it first: the first account then needs a setup token, made here for this run,
 * as a deployment's does; on loopback alone (the default) the machine itself creates it. Empty
 * when the args bind to loopback or already set a SETUP_TOKEN.
 */
export function setupArgs(args) {
  const address = boundAddress(args)
  if (address === undefined || LOOPBACK.test(address)) return { args: [], token: null }
  if (args.some((arg) => arg.startsWith('SETUP_TOKEN:'))) return { args: [], token: null }
  const token = randomBytes(24).toString('hex')
  return { args: ['--var', `SETUP_TOKEN:${token}`], token }
}

/**
 * Starts `wrangler dev`; `args` go to it. The cron sweep runs on a request to the runtime's own
 * route, /cdn-cgi/local/scheduled (the Worker's modules are uploaded as built, so wrangler adds
 * no route of its own to them).
 */
export function startWranglerDev(args, options = {}) {
  return spawn(process.execPath, [wrangler, 'dev', ...args], {
    cwd: root,
    env: env(),
    ...options,
  })
}
