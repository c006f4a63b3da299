import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect } from 'vitest'
import { svc } from './cli'
import { newDevAccount, sharedDevServer, SETUP_MS } from './dev-server'

// The account, keys and scratch folder of a CLI test file against the shared `wrangler dev`.
// Exported as live bindings: they hold their values once the file's beforeAll has run.

export let server: { url: string }
/** A key with the read and write scopes, named `cli` as the tests' expectations say. */
export let key: string
/** A key of the same account with the read scope only. */
export let readKey: string
/** A scratch folder of the file, removed after it. */
export let work: string
/** Another read and write key of the account: for a test that revokes it (`svc logout`). */
export let spareKey: () => Promise<string>

/** Signs up `cli@<name>.example` (one account per test file) and makes the scratch folder. */
export function useCliAccount(name: string) {
  beforeAll(async () => {
    server = await sharedDevServer()
    const account = await newDevAccount(server.url, `cli@${name}.example`, ['read', 'write'])
    key = account.key
    readKey = await account.newKey(['read'])
    spareKey = () => account.newKey(['read', 'write'])
    work = mkdtempSync(join(tmpdir(), `canvas-cli-${name}-`))
  }, SETUP_MS)
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true })
  })
}

export const newHome = () => mkdtempSync(join(work, 'home-'))

/** Writes a file into the scratch folder; returns its path. */
export function file(name: string, content: string | Buffer) {
  const path = join(work, name)
  writeFileSync(path, content)
  return path
}

/** A HOME that is logged in through `svc login`, with `withKey` (the file's key by default). */
export async function loggedIn(withKey = key) {
  const home = newHome()
  const res = await svc(home, [
    'login',
    '--token',
    withKey,
    '--endpoint',
    server.url,
    '--web-url',
    'https://canvas.example',
  ])
  expect(res.code, res.stderr).toBe(0)
  return home
}

/** The canvas id a plain `svc push` prints on its first line. */
export const idOf = (stdout: string) => stdout.split('\n')[0].trim()
export const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex')
