import { spawnSync } from 'node:child_process'
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

// `npm run deploy` against a stand-in wrangler on the PATH (test/node/fixtures), which answers as
// Cloudflare would for an account kept in a file and records every command: a first deploy, an
// upgrade, a dry run, a failure at each step, and a configuration only local tests may have.

const work = mkdtempSync(join(tmpdir(), 'canvas-deploy-test-'))
const bin = join(work, 'bin')
const SECRETS = [
  'STORAGE_SIGNING_SECRET',
  'CSRF_SECRET',
  'FRAME_SIGNING_SECRET',
  'WEBHOOK_ENCRYPTION_KEY',
  'SETUP_TOKEN',
]

afterAll(() => rmSync(work, { recursive: true, force: true }))

type Account = {
  loggedIn: boolean
  databases: string[]
  buckets: string[]
  namespaces: { id: string; title: string }[]
  /** The KV namespace the deployed Worker's OAUTH_KV is bound to. */
  boundNamespace?: string
  queues: string[]
  worker: boolean
  secrets: Record<string, string>
  migrations: number
  deploys: number
  fail?: string
}

const fresh = (): Account => ({
  loggedIn: true,
  databases: [],
  buckets: [],
  namespaces: [],
  queues: [],
  worker: false,
  secrets: {},
  migrations: 0,
  deploys: 0,
})

let runs = 0

/**
 * Runs the deploy script for the account, with only the stand-in as `wrangler`; from a copy of
 * the project whose wrangler.jsonc is `config`, when given.
 */
function deploy(account: Account, args: string[] = [], config?: string) {
  const dir = mkdtempSync(join(work, `run-${++runs}-`))
  const state = join(dir, 'state.json')
  const log = join(dir, 'log.jsonl')
  writeFileSync(state, JSON.stringify(account))
  writeFileSync(log, '')
  const stand = join(dir, 'bin')
  spawnSync('mkdir', ['-p', stand])
  copyFileSync('test/node/fixtures/wrangler-stand-in.mjs', join(stand, 'wrangler'))
  chmodSync(join(stand, 'wrangler'), 0o755)
  let script = 'scripts/deploy.mjs'
  if (config !== undefined) {
    mkdirSync(join(dir, 'project', 'scripts'), { recursive: true })
    copyFileSync(script, join(dir, 'project', script))
    writeFileSync(join(dir, 'project', 'wrangler.jsonc'), config)
    script = join(dir, 'project', script)
  }
  const result = spawnSync(process.execPath, [script, ...args], {
    encoding: 'utf8',
    env: {
      ...process.env,
      // The stand-in first; node_modules/.bin (and the real wrangler) nowhere.
      PATH: [
        stand,
        ...(process.env.PATH ?? '').split(':').filter((p) => !p.includes('node_modules')),
      ].join(':'),
      STANDIN_STATE: state,
      STANDIN_LOG: log,
    },
  })
  const calls = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { args: string[] }).args.join(' '))
  const after = JSON.parse(readFileSync(state, 'utf8')) as Account
  return { ...result, calls, after }
}

const commandsOf = (calls: string[]) =>
  calls.map((c) =>
    c
      .replace(/--secrets-file \S+/, '--secrets-file <file>')
      .replace(/--config \S+/, '--config <config>'),
  )

/** The copies of the config a deploy leaves beside wrangler.jsonc: none, once it has run. */
const leftConfigs = () => readdirSync('.').filter((name) => name.startsWith('.wrangler-deploy-'))

describe('npm run deploy', () => {
  it('a first deploy creates what is missing, migrates, deploys and prints the links', () => {
    const { status, stdout, stderr, calls, after } = deploy(fresh())
    expect(stderr).toBe('')
    expect(status).toBe(0)
    expect(commandsOf(calls)).toEqual([
      'whoami --json',
      'd1 list --json',
      'd1 create canvas',
      'r2 bucket list',
      'r2 bucket create canvas-content',
      'kv namespace list',
      'kv namespace create canvas-oauth-kv',
      'queues info canvas-webhooks',
      'queues create canvas-webhooks',
      'secret list --format json',
      'd1 migrations apply DB --remote',
      'deploy --config <config> --secrets-file <file>',
    ])
    expect(after).toMatchObject({
      databases: ['canvas'],
      buckets: ['canvas-content'],
      namespaces: [{ id: expect.any(String), title: 'canvas-oauth-kv' }],
      queues: ['canvas-webhooks'],
      worker: true,
    })
    // The Worker's OAUTH_KV is the namespace made for it; its config copy is gone.
    expect(after.boundNamespace).toBe(after.namespaces[0].id)
    expect(leftConfigs()).toEqual([])
    expect(after.migrations).toBe(1)
    expect(Object.keys(after.secrets).sort()).toEqual([...SECRETS].sort())
    for (const value of Object.values(after.secrets)) expect(value).toMatch(/^[0-9a-f]{64}$/)
    expect(stdout).toContain('Canvas is deployed at https://canvas.me.workers.dev')
    expect(stdout).toContain('npm install -g https://canvas.me.workers.dev/cli/svc.tgz')
    // Without APP_URL the package names no endpoint: the login line gives it.
    expect(stdout).toContain('svc login --endpoint https://canvas.me.workers.dev')
    expect(stdout).toContain(
      `https://canvas.me.workers.dev/signup?setup=${after.secrets.SETUP_TOKEN}`,
    )
    // The setup link is the one secret shown; the others never are.
    for (const name of SECRETS.filter((n) => n !== 'SETUP_TOKEN')) {
      expect(stdout + stderr).not.toContain(after.secrets[name])
    }
    // The secrets file was temporary: gone with the run.
    const file = calls.at(-1)!.split(' ').at(-1)!
    expect(() => readFileSync(file)).toThrow()
  })

  it('run again, it upgrades: migrations before the Worker, nothing created twice, no secret replaced', () => {
    const first = deploy(fresh()).after
    const { status, stdout, calls, after } = deploy(first)
    expect(status).toBe(0)
    expect(commandsOf(calls)).toEqual([
      'whoami --json',
      'd1 list --json',
      'r2 bucket list',
      'kv namespace list',
      'queues info canvas-webhooks',
      'secret list --format json',
      'd1 migrations apply DB --remote',
      'deploy --config <config>',
    ])
    expect(after.secrets).toEqual(first.secrets)
    expect(after.namespaces).toEqual(first.namespaces)
    expect(after.boundNamespace).toBe(first.boundNamespace)
    expect(after).toMatchObject({
      databases: ['canvas'],
      buckets: ['canvas-content'],
      queues: ['canvas-webhooks'],
    })
    expect(after.migrations).toBe(2)
    expect(stdout).toContain('Every secret is there: none replaced')
    expect(stdout).not.toMatch(/signup\?setup=[0-9a-f]{64}/)
    expect(stdout).not.toContain(first.secrets.SETUP_TOKEN)
  })

  it('a secret missing from an existing Worker is made, the others kept', () => {
    const first = deploy(fresh()).after
    const { CSRF_SECRET: _, ...rest } = first.secrets
    const { calls, after } = deploy({ ...first, secrets: rest })
    expect(commandsOf(calls).at(-1)).toBe('deploy --config <config> --secrets-file <file>')
    expect(after.secrets).toMatchObject(rest)
    expect(after.secrets.CSRF_SECRET).toMatch(/^[0-9a-f]{64}$/)
  })

  it('--dry-run prints every step and runs no command (no network, no login)', () => {
    const { status, stdout, calls, after } = deploy({ ...fresh(), loggedIn: false }, ['--dry-run'])
    expect(status).toBe(0)
    expect(calls).toEqual([])
    expect(after).toEqual({ ...fresh(), loggedIn: false })
    for (const shown of [
      'wrangler whoami --json',
      'wrangler d1 create canvas',
      'wrangler r2 bucket create canvas-content',
      'wrangler kv namespace list',
      'wrangler kv namespace create canvas-oauth-kv',
      'wrangler queues create canvas-webhooks',
      'wrangler secret list --format json',
      'wrangler d1 migrations apply DB --remote',
    ]) {
      expect(stdout).toContain(shown)
    }
    expect(stdout).toMatch(
      /wrangler deploy --config \.wrangler-deploy-\d+\.json --secrets-file <temporary folder>\/secrets\.json/,
    )
    expect(leftConfigs()).toEqual([])
    // Migrations are applied before the Worker is deployed.
    expect(stdout.indexOf('migrations apply')).toBeLessThan(stdout.indexOf('wrangler deploy'))
  })

  const steps: [string, string, number][] = [
    ['whoami', 'check the cloudflare login', 1],
    ['d1 list', 'look for the d1 database', 2],
    ['d1 create', 'create the d1 database canvas', 3],
    ['r2 bucket list', 'look for the r2 bucket', 4],
    ['r2 bucket create', 'create the r2 bucket canvas-content', 5],
    ['kv namespace list', 'look for the kv namespace', 6],
    ['kv namespace create', 'create the kv namespace canvas-oauth-kv', 7],
    ['queues info', 'look for the webhooks queue', 8],
    ['queues create', 'create the queue canvas-webhooks', 9],
    ['secret list', 'look for the worker’s secrets', 10],
    ['d1 migrations apply', 'apply the d1 migrations', 12],
    ['deploy', 'deploy the worker and its cron', 13],
  ]
  for (const [command, title, step] of steps) {
    it(`stops where ${command} fails, saying what failed and what to do`, () => {
      const { status, stderr, calls, after } = deploy({ ...fresh(), fail: command })
      expect(status).toBe(1)
      expect(stderr).toContain(`error: step ${step}, ${title}, failed (wrangler ${command}`)
      expect(stderr).toContain(`${command}: the API answered 500`)
      expect(stderr).toMatch(/\nWhat to do: .+\.\n$/)
      // Nothing after the failed step ran: above all, no Worker on an unmigrated database.
      expect(calls.at(-1)).toMatch(new RegExp(`^${command}`))
      if (step < 13) expect(after.deploys).toBe(0)
      // What the run wrote for wrangler is gone with it, failed or not: the secrets above all.
      expect(leftConfigs()).toEqual([])
      const secrets = /--secrets-file (\S+)/.exec(calls.at(-1)!)?.[1]
      if (secrets) expect(existsSync(secrets), secrets).toBe(false)
    })
  }

  it('a KV namespace there already (a deploy that stopped, the button) is the one bound', () => {
    const there = { id: 'f'.repeat(32), title: 'canvas-oauth-kv' }
    const { status, calls, after } = deploy({ ...fresh(), namespaces: [there] })
    expect(status).toBe(0)
    expect(calls).not.toContain('kv namespace create canvas-oauth-kv')
    expect(after.namespaces).toEqual([there])
    expect(after.boundNamespace).toBe(there.id)
  })

  it('refuses WEBHOOK_ALLOW_LOCAL in wrangler.jsonc before doing anything', () => {
    const config = readFileSync('wrangler.jsonc', 'utf8')
    expect(config).toContain('"WEBHOOK_ALLOW_LOCAL": ""')
    const local = config.replace('"WEBHOOK_ALLOW_LOCAL": ""', '"WEBHOOK_ALLOW_LOCAL": "1"')
    for (const args of [[], ['--dry-run']]) {
      const { status, stderr, calls, after } = deploy(fresh(), args, local)
      expect(status).toBe(1)
      expect(calls).toEqual([])
      expect(after).toEqual(fresh())
      expect(stderr).toContain('error: wrangler.jsonc sets WEBHOOK_ALLOW_LOCAL')
      expect(stderr).toContain('What to do: set "WEBHOOK_ALLOW_LOCAL": "" in wrangler.jsonc')
    }
    // The project's own configuration, copied as it is, deploys.
    expect(deploy(fresh(), [], config).status).toBe(0)
  })

  it('refuses a Worker that has WEBHOOK_ALLOW_LOCAL as a secret, deploying nothing', () => {
    const first = deploy(fresh()).after
    const { status, stderr, calls, after } = deploy({
      ...first,
      secrets: { ...first.secrets, WEBHOOK_ALLOW_LOCAL: '1' },
    })
    expect(status).toBe(1)
    expect(calls.at(-1)).toBe('secret list --format json')
    expect(after.deploys).toBe(first.deploys)
    expect(stderr).toContain(
      'What to do: `npx wrangler secret delete WEBHOOK_ALLOW_LOCAL`, then run `npm run deploy` again.',
    )
  })

  it('not logged in: stops at once and says how to log in', () => {
    const { status, stderr, calls } = deploy({ ...fresh(), loggedIn: false })
    expect(status).toBe(1)
    expect(calls).toEqual(['whoami --json'])
    expect(stderr).toContain(
      'What to do: log in with `npx wrangler login`, or set CLOUDFLARE_API_TOKEN',
    )
  })
})
