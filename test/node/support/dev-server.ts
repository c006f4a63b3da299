import { type ChildProcess } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inject } from 'vitest'
import {
  applyMigrationsAtOnce,
  ensureSecrets,
  startWranglerDev,
} from '../../../scripts/lib/dev.mjs'

export type DevServer = { url: string; stop: () => Promise<void>; output: () => string }

/** A free TCP port on 127.0.0.1, chosen by the OS. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/**
 * What `npm run dev` prepares before it starts wrangler dev: the secrets in .dev.vars, and a local
 * state with the migrations applied, made once per run (test/node/support/global-setup.ts) for
 * every server of the run to start from a copy of, instead of applying them for each.
 */
export async function prepareDevState(): Promise<string> {
  ensureSecrets()
  const template = mkdtempSync(join(tmpdir(), 'canvas-dev-template-'))
  const { code, output } = await applyMigrationsAtOnce(template)
  if (code !== 0) {
    rmSync(template, { recursive: true, force: true })
    throw new Error(`applying the D1 migrations failed:\n${output}`)
  }
  return template
}

/**
 * Starts `npm run dev`'s wrangler dev with its own port and local state (a copy of the run's
 * migrated one: `template`, else the one the global setup made), in its own process group so that
 * stopping it also stops its workerd. A port chosen free can be taken by another process before
 * wrangler listens on it (other test files start servers at the same time): a server that exits
 * before it answers is started again, on new ports, up to three times.
 */
export async function startDevServer(extraArgs: string[] = [], template?: string) {
  const from = template ?? (await migratedState())
  let failure: unknown
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      return await startOnce(extraArgs, from)
    } catch (err) {
      failure = err
      if (!(err instanceof ExitedEarly)) throw err
    }
  }
  throw failure
}

class ExitedEarly extends Error {}

/**
 * How long a test file's setup may wait for its servers: a start waits for as long as starting
 * takes (a machine running another suite beside this one took minutes), and fails only when the
 * server itself gives up, showing what it said. This is the deadline of a stuck start alone.
 */
export const SETUP_MS = 15 * 60_000

async function startOnce(extraArgs: string[], template: string): Promise<DevServer> {
  const port = await freePort()
  // wrangler's own choice of inspector port (9229, else the next one free) races between two
  // servers starting at once: one of them then failed with "Address already in use".
  const inspector = await freePort()
  const state = mkdtempSync(join(tmpdir(), 'canvas-dev-'))
  cpSync(template, state, { recursive: true })
  const child: ChildProcess = startWranglerDev(
    [
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--persist-to',
      state,
      '--inspector-port',
      String(inspector),
      ...extraArgs,
    ],
    { detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  stopsWithThisProcess(child.pid!)
  let log = ''
  child.stdout!.on('data', (d) => (log += d))
  child.stderr!.on('data', (d) => (log += d))
  const url = `http://127.0.0.1:${port}`
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, name)
    } catch {
      // Already gone.
    }
  }
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      signal('SIGTERM')
      const timer = setTimeout(() => signal('SIGKILL'), 5000)
      await exited
      clearTimeout(timer)
    }
    // Whatever is left in the group (a lingering workerd) goes too.
    signal('SIGKILL')
    running.delete(child.pid!)
    rmSync(state, { recursive: true, force: true })
  }
  while (child.exitCode === null && child.signalCode === null) {
    try {
      const res = await fetch(`${url}/health`)
      if (res.ok) return { url, stop, output: () => log }
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  await stop()
  throw new ExitedEarly(`wrangler dev exited before it answered:\n${log}`)
}

// The process groups of the servers this process started and has not stopped. A run that ends
// before its teardown (Ctrl-C, a CI time limit) kills them as it goes: a server in a group of its
// own would otherwise outlive it, holding its ports and CPU.
const running = new Set<number>()

function stopsWithThisProcess(group: number) {
  if (!guarded) guardExit()
  running.add(group)
}

let guarded = false
function guardExit() {
  guarded = true
  const killAll = () => {
    for (const group of running) {
      try {
        process.kill(-group, 'SIGKILL')
      } catch {
        // Already gone.
      }
    }
  }
  process.once('exit', killAll)
  for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    // Once killed, the signal is raised again for whoever else listens, or the default (exit).
    process.once(name, () => {
      killAll()
      process.kill(process.pid, name)
    })
  }
}

/** Where the run's shared Chromium listens (launchBrowserServer), started on first ask. */
export const sharedBrowserEndpoint = () => askControl('/browser')

/** The run's migrated local state (prepareDevState), made by the global setup on first ask. */
export const migratedState = () => askControl('/state')

/**
 * The dev server this run's node files share (test/node/support/global-setup.ts), with SIGNUP
 * open and its owner's account, started on the first call. Each file works on an account of its
 * own (newDevAccount), and its browser persons come from addresses of their own (clientAddress),
 * so the budgets wrangler.jsonc sets per client address are theirs. A file that needs a setting
 * of its own, or a server with no account on it yet, starts its own with startDevServer.
 */
export async function sharedDevServer() {
  return { url: await askControl('/'), output: () => askControl('/output') }
}

/** Asks the global setup's control server (the shared server's address, the migrated state). */
async function askControl(path: string) {
  const res = await fetch(inject('devServerControl') + path)
  if (!res.ok) throw new Error(`the global setup failed:\n${await res.text()}`)
  return (await res.json()) as string
}

/**
 * A client address of its own (in 10.0.0.0/8), for a test's account or browser person: wrangler dev
 * keeps a CF-Connecting-IP the client sends, and the per-address budgets (signups and logins,
 * frames, public links) are then each person's own, as they are for people on their own networks,
 * not one budget shared by every file of the run.
 */
export function clientAddress() {
  const part = () => 1 + Math.floor(Math.random() * 254)
  return `10.${part()}.${part()}.${part()}`
}

/**
 * A person, or a test, on the machine the server runs on: no address of its own, so the server
 * sees the connection's, 127.0.0.1. Also for a browser that loads the drawing libraries, which a
 * sandboxed frame fetches with CORS: a header added to those requests would make them preflighted.
 */
export const ON_THIS_MACHINE = { address: null }

/** The header that names `address` as the client's; none for ON_THIS_MACHINE. */
export function addressHeaders(address: string | null): Record<string, string> {
  return address ? { 'CF-Connecting-IP': address } : {}
}

/**
 * An account on a dev server, signed up, with its session cookie and a first key, from a client
 * address of its own unless `address` says otherwise: a server's first account comes from the
 * machine itself (ON_THIS_MACHINE), as only that one may create it without a setup token.
 */
export async function newDevAccount(
  url: string,
  email: string,
  scopes?: string[],
  { address = clientAddress() as string | null } = {},
) {
  const from = addressHeaders(address)
  const signup = await fetch(`${url}/auth/signup`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...from },
    body: JSON.stringify({ email, password: 'correct horse battery' }),
  })
  if (signup.status !== 201) throw new Error(`signup: ${signup.status} ${await signup.text()}`)
  const cookie = signup.headers.get('set-cookie')!.split(';')[0]
  const newKey = async (keyScopes?: string[]) => {
    const res = await fetch(`${url}/auth/keys`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: cookie, ...from },
      body: JSON.stringify({
        name: email.split('@')[0],
        ...(keyScopes ? { scopes: keyScopes } : {}),
      }),
    })
    if (res.status !== 201) throw new Error(`key: ${res.status} ${await res.text()}`)
    return ((await res.json()) as { key: string }).key
  }
  return { cookie, key: await newKey(scopes), newKey }
}
