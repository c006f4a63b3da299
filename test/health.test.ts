import { SELF } from 'cloudflare:test'
import { expect, it } from 'vitest'
import { call, json, REQUEST_ID } from './support/api'

it('answers ok when D1 is reachable', async () => {
  const res = await SELF.fetch('http://canvas.test/health')
  expect(res.status).toBe(200)
  expect(res.headers.get('Content-Type')).toBe('application/json')
  expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff')
  expect(await res.json()).toEqual({ ok: true })
})

it('answers 503 while D1 is unreachable, never caches that, and caches a success for 5 s', async () => {
  // A D1 that is down for the first check, then back.
  let calls = 0
  const flaky = {
    prepare: () => {
      calls++
      if (calls === 1) throw new Error('D1_ERROR: network connection lost')
      return { first: async () => ({ 1: 1 }) }
    },
  } as unknown as D1Database
  const down = await call('/health', { env: { DB: flaky } })
  expect(down.status).toBe(503)
  expect(await json(down)).toEqual({
    ok: false,
    error: { code: 'service_unavailable', message: 'database unreachable', request_id: REQUEST_ID },
  })
  // The failure was not remembered: the next poll asks D1 again and finds it back.
  const up = await call('/health', { env: { DB: flaky } })
  expect(up.status).toBe(200)
  expect(calls).toBe(2)
  // A success is: polls within the next 5 s cost no D1 query.
  for (let i = 0; i < 3; i++)
    expect((await call('/health', { env: { DB: flaky } })).status).toBe(200)
  expect(calls).toBe(2)
})
