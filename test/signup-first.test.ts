import { env } from 'cloudflare:test'
import { expect, it } from 'vitest'
import { call, errorOf, formPost, SETUP_TOKEN } from './support/api'

// Its own file, so the database starts with no user (each test file has its own storage). A fresh
// deployment belongs to whoever holds its setup link, not to whoever reaches it first.

const owner = { email: 'owner@example.com', password: 'correct horse battery' }
const setupNeeded = errorOf(
  'signup_closed',
  'this server has no account yet: the first is created with its setup link (printed by npm run deploy) or its SETUP_TOKEN',
)
const users = async () =>
  (await env.DB.prepare('SELECT count(*) AS n FROM users').first<{ n: number }>())!.n

it('the first account needs the setup token, over the API and the web, then it is spent', async () => {
  expect(await users()).toBe(0)
  for (const json of [owner, { ...owner, setup_token: 'wrong' }, { ...owner, setup_token: '' }]) {
    const refused = await call('/auth/signup', { method: 'POST', json, env: { SIGNUP: 'open' } })
    expect(refused.status).toBe(403)
    expect(await refused.json()).toEqual(setupNeeded)
  }
  // The web: without the link a page that says how; with a wrong token the same.
  for (const path of ['/signup', '/signup?setup=wrong']) {
    const page = await call(path)
    expect(page.status).toBe(403)
    expect(await page.text()).toContain('This Canvas is not set up yet')
  }
  const posted = await call('/signup', formPost({ ...owner, setup_token: 'wrong' }))
  expect(posted.status).toBe(403)
  // Not even from a request claiming the machine itself, once a token is set.
  const local = await call('http://127.0.0.1/auth/signup', {
    method: 'POST',
    json: owner,
    ip: '127.0.0.1',
  })
  expect(local.status).toBe(403)
  expect(await users()).toBe(0)

  const form = await call(`/signup?setup=${SETUP_TOKEN}`)
  expect(form.status).toBe(200)
  expect(await form.text()).toContain(`name="setup_token" value="${SETUP_TOKEN}"`)
  const first = await call('/signup', formPost({ ...owner, setup_token: SETUP_TOKEN }))
  expect(first.status).toBe(302)
  expect(await users()).toBe(1)

  // Spent: the link opens no second account while signup is closed.
  const again = await call('/auth/signup', {
    method: 'POST',
    json: { email: 'second@example.com', password: owner.password, setup_token: SETUP_TOKEN },
    env: { SIGNUP: 'closed' },
  })
  expect(again.status).toBe(403)
  expect(await again.json()).toEqual(errorOf('signup_closed', 'signup is closed on this server'))
  expect((await call(`/signup?setup=${SETUP_TOKEN}`)).status).toBe(200)
  expect(await users()).toBe(1)
})

it('with no SETUP_TOKEN set, only the machine itself creates the first account', async () => {
  await env.DB.prepare('DELETE FROM users').run()
  const unset = { SETUP_TOKEN: '' }
  for (const url of ['http://canvas.test/auth/signup', 'https://canvas.example.com/auth/signup']) {
    const res = await call(url, { method: 'POST', json: owner, env: unset })
    expect(res.status).toBe(403)
  }
  // The review's fifth finding: the machine was told by the Host header, which any client on the
  // network of a dev server bound beyond loopback could write. Now by the connection's address.
  for (const ip of [undefined, '192.168.1.20', '10.0.0.5', '2001:db8::1', '::ffff:192.168.1.20']) {
    for (const host of ['127.0.0.1:8787', 'localhost:8787', '[::1]:8787']) {
      const res = await call(`http://${host}/auth/signup`, {
        method: 'POST',
        json: owner,
        env: unset,
        ip,
      })
      expect(res.status, `${host} from ${ip}`).toBe(403)
      const page = await call(`http://${host}/signup`, { env: unset, ip })
      expect(page.status, `${host} from ${ip}`).toBe(403)
    }
  }
  expect(await users()).toBe(0)
  for (const ip of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '127.0.0.2']) {
    const page = await call('http://127.0.0.1:8787/signup', { env: unset, ip })
    expect(page.status, ip).toBe(200)
  }
  const local = await call('http://127.0.0.1:8787/auth/signup', {
    method: 'POST',
    json: owner,
    env: unset,
    ip: '127.0.0.1',
  })
  expect(local.status).toBe(201)
})
