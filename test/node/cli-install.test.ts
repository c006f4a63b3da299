import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
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
})
