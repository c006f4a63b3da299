import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NO_SERVED_ENDPOINT } from '../../src/lib/cli-package'
import { SVC } from './support/cli'
import { newDevAccount, sharedDevServer, SETUP_MS } from './support/dev-server'

// The CLI a teammate installs from the deployment (docs/cli.md#install-and-first-steps): the package served at
// /cli/svc.tgz installed by npm into a temporary prefix, then used against the running service
// with no endpoint given: the default is the deployment it came from.

let work: string
let url: string
let key: string

beforeAll(async () => {
  url = (await sharedDevServer()).url
  key = (await newDevAccount(url, 'cli@install.example', ['read', 'write'])).key
  work = mkdtempSync(join(tmpdir(), 'canvas-cli-install-'))
}, SETUP_MS)
afterAll(() => rmSync(work, { recursive: true, force: true }))

function run(command: string, args: string[], env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }))
  })
}

describe('installing the CLI from the deployment', () => {
  it('npm install -g <web_url>/cli/svc.tgz gives an svc that talks to it by default', async () => {
    const prefix = join(work, 'prefix')
    const home = join(work, 'home')
    const env = { PATH: process.env.PATH ?? '', HOME: home }
    const npm = await run(
      'npm',
      [
        'install',
        '--global',
        '--prefix',
        prefix,
        '--cache',
        join(work, 'npm-cache'),
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '--no-update-notifier',
        `${url}/cli/svc.tgz`,
      ],
      env,
    )
    expect(npm.code, npm.stderr).toBe(0)
    const svc = join(prefix, 'bin', 'svc')
    const status = await run(svc, ['status', '--json'], { ...env, CANVAS_API_KEY: key })
    expect(status.code, status.stderr).toBe(0)
    const said = JSON.parse(status.stdout)
    expect(said).toMatchObject({
      endpoint: url,
      sources: { endpoint: { from: 'default' } },
      user: { email: 'cli@install.example' },
    })
  }, 120_000)

  it('a package that could not name its deployment asks for an endpoint, then uses the one given', async () => {
    // What GET /cli/svc.tgz writes in the marker's place when it cannot tell its own address
    // safely (test/cli-package.test.ts): the bundle, so marked, run as the package would be.
    const bundle = readFileSync(SVC, 'utf8')
    const marker = 'canvas:served-endpoint'.padEnd(512, ' ')
    expect(bundle).toContain(marker)
    const unnamed = join(work, 'unnamed-svc.mjs')
    writeFileSync(unnamed, bundle.replace(marker, NO_SERVED_ENDPOINT.padEnd(512, ' ')))
    const env = { PATH: process.env.PATH ?? '', HOME: join(work, 'unnamed-home') }
    const status = await run(process.execPath, [unnamed, 'status'], env)
    expect(status.code).toBe(2)
    expect(status.stderr).toContain('no endpoint')
    expect(status.stderr).toContain('svc login --endpoint')
    const login = await run(
      process.execPath,
      [unnamed, 'login', '--endpoint', url, '--token', key, '--json'],
      env,
    )
    expect(login.code, login.stderr).toBe(0)
    const after = await run(process.execPath, [unnamed, 'status', '--json'], env)
    expect(after.code, after.stderr).toBe(0)
    expect(JSON.parse(after.stdout)).toMatchObject({ endpoint: url })
  }, 60_000)
})
