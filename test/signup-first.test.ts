import { env } from 'cloudflare:test'
import { expect, it } from 'vitest'
import { call } from './support/api'

// Its own file, so the database starts with no user (each test file has its own storage).
it('allows the first signup even when SIGNUP is closed', async () => {
  expect(await env.DB.prepare('SELECT 1 FROM users').first()).toBeNull()
  const first = await call('/auth/signup', {
    method: 'POST',
    json: { email: 'owner@example.com', password: 'correct horse battery' },
    env: { SIGNUP: 'closed' },
  })
  expect(first.status).toBe(201)
  const second = await call('/auth/signup', {
    method: 'POST',
    json: { email: 'second@example.com', password: 'correct horse battery' },
    env: { SIGNUP: 'closed' },
  })
  expect(second.status).toBe(403)
})
