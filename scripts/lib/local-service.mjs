// A throwaway local Canvas service for scripts (benchmarks, screenshots): `npm run dev`'s script on
// a free 127.0.0.1 port with its own state, in its own process group, and a first account.
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))

export async function startService(work, extraArgs = []) {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const child = spawn(
    process.execPath,
    [
      'scripts/dev.mjs',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--persist-to',
      join(work, 'state'),
      ...extraArgs,
    ],
    {
      cwd: root,
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
    },
  )
  const stop = () => {
    try {
      process.kill(-child.pid, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
  for (let i = 0; i < 240; i++) {
    try {
      if ((await fetch(`${url}/health`)).ok) return { url, stop }
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  stop()
  throw new Error('the dev server did not start')
}

/** Signs up (the first user is always allowed) and returns a read+write API key and the cookie. */
export async function createAccount(url, email) {
  const signup = await fetch(`${url}/auth/signup`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password: 'a long password' }),
  })
  const cookie = signup.headers.get('set-cookie').split(';')[0]
  const res = await fetch(`${url}/auth/keys`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Cookie: cookie },
    body: JSON.stringify({ name: 'script' }),
  })
  return { key: (await res.json()).key, cookie }
}

export function freePort() {
  return new Promise((resolve) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

/**
 * fetch, once more on a failed socket: keep-alive sockets left idle during a long measurement
 * may have been closed by the server in the meantime.
 */
export async function fetchRetry(url, init) {
  try {
    return await fetch(url, init)
  } catch (err) {
    if (!(err instanceof TypeError)) throw err
    return fetch(url, init)
  }
}
