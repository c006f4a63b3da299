import { SELF } from 'cloudflare:test'
import { expect, it } from 'vitest'
import { call, json } from './support/api'

it('answers ok when D1 is reachable', async () => {
  const res = await SELF.fetch('http://canvas.test/health')
  expect(res.status).toBe(200)
  expect(res.headers.get('Content-Type')).toBe('application/json')
  expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff')
  expect(await res.json()).toEqual({ ok: true })
})

it('answers 503 when D1 is unreachable, and never caches the failure', async () => {
  const broken = {
    prepare: () => {
      throw new Error('D1_ERROR: network connection lost')
    },
  } as unknown as D1Database
  for (let i = 0; i < 2; i++) {
    const res = await call('/health', { env: { DB: broken } })
    expect(res.status).toBe(503)
    expect(await json(res)).toEqual({
      ok: false,
      error: { code: 'service_unavailable', message: 'database unreachable' },
    })
  }
})
