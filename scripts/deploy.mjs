#!/usr/bin/env node
// `npm run deploy`: the whole deployment, after `npx wrangler login` (or with CLOUDFLARE_API_TOKEN
// set). Creates what is missing (the D1 database, the R2 bucket, the OAuth server's KV namespace,
// the webhooks' queue), generates the secrets the Worker needs without printing them, applies the
// D1 migrations, then deploys the Worker and its cron, and prints its URL, the CLI's install line
// and, the first time, the one-time setup link. Run
// again, it upgrades: migrations first, then the Worker; nothing there already is created again,
// no secret is replaced. `--dry-run` prints every step and runs none (no network, no login).
//   npm run deploy [-- --dry-run]
// wrangler is the one on the PATH (npm puts the project's first).
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const root = fileURLToPath(new URL('..', import.meta.url))
const { values } = parseArgs({ options: { 'dry-run': { type: 'boolean', default: false } } })
const dryRun = values['dry-run']

/** The secrets the Worker needs; each generated once, when the deployment does not have it. */
const SECRETS = [
  'STORAGE_SIGNING_SECRET',
  'CSRF_SECRET',
  'FRAME_SIGNING_SECRET',
  'WEBHOOK_ENCRYPTION_KEY',
  'SETUP_TOKEN',
]
// Lets webhooks call loopback addresses and plain http: for local tests, never a deployment.
const LOCAL_ONLY = 'WEBHOOK_ALLOW_LOCAL'

const config = readConfig()
const database = config.d1_databases[0].database_name
const bucket = config.r2_buckets[0].bucket_name
const queue = config.queues.producers[0].queue
if (config.vars?.[LOCAL_ONLY]) {
  console.error(
    `error: wrangler.jsonc sets ${LOCAL_ONLY}, which lets webhooks reach this machine's own network; ` +
      'it is for local tests only, never a deployment.\n\n' +
      `What to do: set "${LOCAL_ONLY}": "" in wrangler.jsonc (vars), then run \`npm run deploy\` again.`,
  )
  process.exit(1)
}
// The name wrangler itself would give the namespace of the OAUTH_KV binding.
const namespace = `${config.name}-oauth-kv`
const work = mkdtempSync(join(tmpdir(), 'canvas-deploy-'))
// wrangler.jsonc holds no id, and a KV namespace (unlike a database or a bucket) is not found by
// its name: the Worker is deployed from a copy of the config with the namespace's id, beside
// wrangler.jsonc so that its relative paths still hold, and removed with the run.
const deployConfig = `.wrangler-deploy-${process.pid}.json`
let step = 0

try {
  if (dryRun) console.log('Dry run: every step that `npm run deploy` takes, none of them run.\n')
  await run('Check the Cloudflare login', ['whoami', '--json'], {
    fix: 'log in with `npx wrangler login`, or set CLOUDFLARE_API_TOKEN (and CLOUDFLARE_ACCOUNT_ID with several accounts)',
    check: (out) => JSON.parse(out).loggedIn === true,
  })

  const databases = await run('Look for the D1 database', ['d1', 'list', '--json'], {
    fix: 'check the login has D1 edit permission',
    read: (out) => JSON.parse(out).map((db) => db.name),
  })
  if (dryRun || !databases.includes(database)) {
    await run(
      `Create the D1 database ${database}${dryRun ? ' if missing' : ''}`,
      ['d1', 'create', database],
      {
        fix: 'check the login has D1 edit permission and the account has room for a database',
      },
    )
  } else done(`The D1 database ${database} is there`)

  const buckets = await run('Look for the R2 bucket', ['r2', 'bucket', 'list'], {
    fix: 'enable R2 on the account (dashboard: R2), and check the login has R2 edit permission',
    read: (out) => [...out.matchAll(/^name:\s+(\S+)\s*$/gm)].map((m) => m[1]),
  })
  if (dryRun || !buckets.includes(bucket)) {
    await run(
      `Create the R2 bucket ${bucket}${dryRun ? ' if missing' : ''}`,
      ['r2', 'bucket', 'create', bucket],
      {
        fix: 'enable R2 on the account (dashboard: R2), and check the login has R2 edit permission',
      },
    )
  } else done(`The R2 bucket ${bucket} is there`)

  const namespaces = await run('Look for the KV namespace', ['kv', 'namespace', 'list'], {
    fix: 'check the login has Workers KV Storage edit permission',
    read: (out) => JSON.parse(out),
  })
  let namespaceId = namespaces.find((n) => n.title === namespace)?.id
  if (dryRun || !namespaceId) {
    namespaceId = await run(
      `Create the KV namespace ${namespace}${dryRun ? ' if missing' : ''}`,
      ['kv', 'namespace', 'create', namespace],
      {
        fix: 'check the login has Workers KV Storage edit permission',
        read: (out) => /"id":\s*"(\w+)"/.exec(out)[1],
      },
    )
  } else done(`The KV namespace ${namespace} is there`)

  const queues = await run('Look for the webhooks queue', ['queues', 'info', queue], {
    fix: 'check the login has Queues edit permission (Queues needs a Workers plan that includes them)',
    read: () => [queue],
    absent: /does not exist/,
  })
  if (dryRun || !queues) {
    await run(
      `Create the queue ${queue}${dryRun ? ' if missing' : ''}`,
      ['queues', 'create', queue],
      {
        fix: 'check the login has Queues edit permission (Queues needs a Workers plan that includes them)',
      },
    )
  } else done(`The queue ${queue} is there`)

  // A first deploy: the Worker does not exist yet, and so has no secret.
  const present = await run(
    'Look for the Worker’s secrets',
    ['secret', 'list', '--format', 'json'],
    {
      fix: 'check the login has Workers edit permission',
      read: (out) => JSON.parse(out).map((s) => s.name),
      absent: /does not exist|10007/,
    },
  )
  if ((present ?? []).includes(LOCAL_ONLY)) {
    console.error(
      `\nerror: the Worker has a secret ${LOCAL_ONLY}, which lets webhooks reach loopback addresses; ` +
        'it is for local tests only, never a deployment.\n\n' +
        `What to do: \`npx wrangler secret delete ${LOCAL_ONLY}\`, then run \`npm run deploy\` again.`,
    )
    cleanUp()
    process.exit(1)
  }
  const missing = dryRun ? SECRETS : SECRETS.filter((name) => !(present ?? []).includes(name))
  const generated = Object.fromEntries(
    missing.map((name) => [name, randomBytes(32).toString('hex')]),
  )
  if (missing.length)
    done(`Generate ${missing.join(', ')} (never printed; kept only by Cloudflare)`)
  else done('Every secret is there: none replaced')

  await run('Apply the D1 migrations', ['d1', 'migrations', 'apply', 'DB', '--remote'], {
    fix: 'the Worker was not deployed, so nothing runs on a half-migrated database; fix the cause and run `npm run deploy` again (applied migrations are not applied twice)',
  })

  const secretsFile = join(work, 'secrets.json')
  const output = join(work, 'output.jsonl')
  const deployArgs = [
    'deploy',
    '--config',
    deployConfig,
    ...(missing.length ? ['--secrets-file', secretsFile] : []),
  ]
  if (!dryRun) {
    writeFileSync(secretsFile, JSON.stringify(generated), { mode: 0o600 })
    const bound = config.kv_namespaces.map((kv) =>
      kv.binding === 'OAUTH_KV' ? { ...kv, id: namespaceId } : kv,
    )
    writeFileSync(join(root, deployConfig), JSON.stringify({ ...config, kv_namespaces: bound }))
  }
  await run('Deploy the Worker and its cron', deployArgs, {
    fix: 'the database is migrated already (migrations only add, so the Worker running before still works); fix the cause and run `npm run deploy` again (a new account first needs its workers.dev subdomain: dashboard, Workers & Pages)',
    env: { WRANGLER_OUTPUT_FILE_PATH: output },
  })

  if (dryRun) {
    console.log(
      '\nThen it prints the app’s URL, the line that installs its CLI and, the first time, the setup link.',
    )
  } else report(deployedUrl(output), generated.SETUP_TOKEN)
} finally {
  cleanUp()
}

/**
 * One step: runs `wrangler <args>` (or, in a dry run, says it would), and stops the deploy when it
 * fails, saying what failed and what to do. `read` turns its output into the step's answer;
 * `absent` names the failure that means "nothing there yet", answered as null.
 */
async function run(title, args, { fix, read, check, absent, env = {} }) {
  step++
  const shown = `wrangler ${args.join(' ')}`.replace(work, '<temporary folder>')
  if (dryRun) {
    console.log(`${step}. ${title}: ${shown}`)
    return read ? [] : undefined
  }
  process.stdout.write(`${step}. ${title}… `)
  const result = spawnSync('wrangler', args, {
    cwd: root,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', ...env },
    encoding: 'utf8',
    // Nothing to answer: a prompt (create this? add it to the config?) takes its default, as in
    // CI, instead of waiting on a question nobody sees. Its output is read here.
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const out = result.stdout ?? ''
  const said = `${out}\n${result.stderr ?? ''}`
  if (result.status !== 0 && absent?.test(said)) {
    console.log('none yet')
    return null
  }
  let answer
  let ok = result.status === 0
  try {
    if (ok && check) ok = check(out)
    if (ok && read) answer = read(out)
  } catch {
    ok = false
  }
  if (!ok) {
    console.log('failed')
    const detail = result.error
      ? String(result.error)
      : said.trim().split('\n').slice(-12).join('\n')
    console.error(`\nerror: step ${step}, ${title.toLowerCase()}, failed (${shown}):\n${detail}`)
    console.error(`\nWhat to do: ${fix}.`)
    // Exiting skips the `finally` above: the secrets file and the config copy go first.
    cleanUp()
    process.exit(1)
  }
  console.log('done')
  return answer
}

function cleanUp() {
  rmSync(work, { recursive: true, force: true })
  rmSync(join(root, deployConfig), { force: true })
}

function done(text) {
  step++
  console.log(`${step}. ${text}`)
}

/** The Worker's https address, from the deploy event wrangler writes to its output file. */
function deployedUrl(file) {
  let events = []
  try {
    events = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
  } catch {
    // No file: the address is in wrangler's own output above.
  }
  const deploy = events.find((e) => e.type === 'deploy')
  return deploy?.targets?.find((t) => t.startsWith('https://')) ?? null
}

function report(url, setupToken) {
  const at = url ?? '<the URL wrangler printed above>'
  console.log(`\nCanvas is deployed at ${at}`)
  // Without APP_URL the package names no endpoint (a Host header could have chosen it).
  const named = Boolean(config.vars?.APP_URL)
  const login = named ? 'svc login' : `svc login --endpoint ${at}`
  console.log(
    `\nInstall its CLI on any machine (Node.js 20+):\n  npm install -g ${at}/cli/svc.tgz\nthen \`${login}\`, which signs in through the browser.`,
  )
  if (!named) {
    console.log(
      `Set APP_URL in wrangler.jsonc (vars) to ${at} or your own domain, and deploy again: the package then names it, and \`svc login\` needs no --endpoint.`,
    )
  }
  if (setupToken) {
    console.log(
      `\nCreate its first account with this one-time setup link (it works once; keep it to yourself):\n  ${at}/signup?setup=${setupToken}`,
    )
  } else {
    console.log(
      '\nThe first account was set up before (the setup link is printed once, at the first deploy;' +
        ' lost before anyone signed up? `npx wrangler secret put SETUP_TOKEN`, then open /signup?setup=<it>).',
    )
  }
}

/** wrangler.jsonc, comments and trailing commas dropped. */
function readConfig() {
  const text = readFileSync(join(root, 'wrangler.jsonc'), 'utf8')
  const json = text
    .replace(/("(?:\\.|[^"\\])*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (m, string) => string ?? '')
    .replace(/,(\s*[}\]])/g, '$1')
  return JSON.parse(json)
}
