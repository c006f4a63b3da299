// A throwaway local Canvas service for scripts (benchmarks, screenshots): `npm run dev`'s script on
// a free 127.0.0.1 port with its own state, in its own process group, and a first account.
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { retry, TransientAnswer } from './retry.mjs'

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

/**
 * Signs up (the first user is always allowed) and returns a read+write API key and the cookie.
 * Both requests are retried (fetchRetry); a signup retried after its answer was lost finds the
 * account made, and logs in to it instead.
 */
export async function createAccount(url, email) {
  const credentials = {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password: 'a long password' }),
  }
  let session = await fetchRetry(`${url}/auth/signup`, credentials)
  if (session.status === 409) session = await fetchRetry(`${url}/auth/login`, credentials)
  await expectStatus(session, [200, 201], `signing up ${email}`)
  const cookie = session.headers.get('set-cookie').split(';')[0]
  // A key made twice by a retry is one unused key more: harmless here.
  const res = await fetchRetry(`${url}/auth/keys`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Cookie: cookie },
    body: JSON.stringify({ name: 'script' }),
  })
  await expectStatus(res, [201], `creating an API key for ${email}`)
  return { key: (await res.json()).key, cookie }
}

/** Throws, naming `what` and quoting the answer, unless `res` has one of `statuses`. */
export async function expectStatus(res, statuses, what) {
  if (statuses.includes(res.status)) return
  throw new Error(`${what}: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`)
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
 * fetch, tried again (up to `tries` times, with growing waits, each retry said on stderr) when
 * its socket fails or the answer is a 5xx or 429: keep-alive sockets left idle during a long
 * measurement may have been closed by the server in the meantime, and a runtime busy with
 * seeding can drop one. Other answers are the caller's to judge. A write is only safe to send
 * again if repeating it is harmless or it carries an Idempotency-Key; its body must be a string,
 * bytes or a FormData (sent again as it is).
 */
export function fetchRetry(url, init = {}, { tries } = {}) {
  return retry(
    `${init.method ?? 'GET'} ${url}`,
    async () => {
      const res = await fetch(url, init)
      if (res.status < 500 && res.status !== 429) return res
      const retryAfter = Number(res.headers.get('retry-after')) || undefined
      throw new TransientAnswer(res.status, await res.text(), retryAfter)
    },
    { tries },
  )
}
