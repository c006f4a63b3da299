import { env } from 'cloudflare:test'
import { expect, it } from 'vitest'
import { call, newAccount } from '../support/api'
import { watchedBindings } from '../support/write-watch'

// The watch that spares the hostile-input check its fingerprint after a request that wrote nothing
// (test/support/write-watch.ts) must see every write, or that check would miss one.

it("sees no write in a read, and one in a key's first use, a new canvas, an OAuth client and a failed statement", async () => {
  const account = await newAccount()
  const watched = watchedBindings()
  const request = async (path: string, init: Parameters<typeof call>[1] = {}) => {
    watched.seen.wrote = false
    const res = await call(path, { ...init, env: watched.bindings })
    return { status: res.status, wrote: watched.seen.wrote }
  }

  // A key's first use records when it was used; the next ones, soon after, write nothing.
  expect(await request('/v1/me', { key: account.key })).toEqual({ status: 200, wrote: true })
  expect(await request('/v1/me', { key: account.key })).toEqual({ status: 200, wrote: false })
  expect(await request('/v1/canvases', { key: account.key })).toEqual({ status: 200, wrote: false })

  const body = new FormData()
  body.append('file', new Blob(['watched']), 'watched.txt')
  const made = await request('/v1/canvases', { method: 'POST', key: account.key, body })
  expect(made).toEqual({ status: 201, wrote: true })

  // The OAuth library keeps its clients in KV, not D1.
  const json = { client_name: 'Watched', redirect_uris: ['https://chat.example/callback'] }
  const registered = await request('https://canvas.test/oauth/register', { method: 'POST', json })
  expect(registered).toEqual({ status: 201, wrote: true })

  // Straight to the bindings: an update that matches nothing changes nothing; one that matches
  // does; a statement that fails may have done anything.
  const { DB } = watched.bindings
  watched.seen.wrote = false
  await DB.prepare('UPDATE users SET email = email WHERE 0').run()
  expect(watched.seen.wrote).toBe(false)
  await DB.prepare('UPDATE users SET email = email WHERE user_id = ?').bind(account.userId).run()
  expect(watched.seen.wrote).toBe(true)
  watched.seen.wrote = false
  await expect(DB.prepare('SELECT * FROM no_such_table').all()).rejects.toThrow()
  expect(watched.seen.wrote).toBe(true)
  watched.seen.wrote = false
  await env.OAUTH_KV.get('nothing')
  await watched.bindings.OAUTH_KV.get('nothing')
  expect(watched.seen.wrote).toBe(false)
  await watched.bindings.OAUTH_KV.delete('nothing')
  expect(watched.seen.wrote).toBe(true)
})
