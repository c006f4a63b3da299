import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { bytesOf, call, csrfOf, formPost, json, newAccount, newCanvas, upload } from './support/api'
import { meteredD1 } from '../src/storage/metered-d1'

// D1 read replication: every request runs in a D1 session, started from the bookmark the client
// sends back (header, or cookie for browsers), and answers the session's bookmark. Locally there
// is one database and no replica, so what is tested is the carrying: the suite as a whole runs
// every read-after-write through sessions.

const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/
const bookmarkOf = (res: Response) => res.headers.get('x-d1-bookmark')

/** The binding, noting what each session is started from. */
function sessionSpy() {
  const sessions: (string | undefined)[] = []
  const DB = new Proxy(env.DB, {
    get(target, prop) {
      if (prop === 'withSession') {
        return (constraint?: string) => {
          sessions.push(constraint)
          return target.withSession(constraint)
        }
      }
      const value = Reflect.get(target, prop, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  return { DB, sessions }
}

describe('the API', () => {
  it('answers a bookmark, newer after a write, and a read sent it back sees the write', async () => {
    const account = await newAccount()
    const key = account.key
    const canvas = await newCanvas(key, 'first words', { permanent: true })
    const read = await call(`/v1/canvases/${canvas.canvas_id}`, { key })
    expect(bookmarkOf(read)).toMatch(BOOKMARK)
    const write = await call(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'PATCH',
      key,
      json: { file_id: await upload(key, bytesOf('second words')), title: 'second' },
    })
    const written = bookmarkOf(write)!
    expect(written).toMatch(BOOKMARK)
    expect(written > bookmarkOf(read)!).toBe(true)
    const after = await call(`/v1/canvases/${canvas.canvas_id}`, {
      key,
      headers: { 'x-d1-bookmark': written },
    })
    expect(await json(after)).toMatchObject({ version: 2, title: 'second' })
    expect(bookmarkOf(after)! >= written).toBe(true)
  })

  it('runs the request in a session of the binding, from the bookmark sent', async () => {
    const account = await newAccount()
    const { DB, sessions } = sessionSpy()
    const first = await call('/v1/canvases', { key: account.key, env: { DB } })
    const bookmark = bookmarkOf(first)!
    await call('/v1/canvases', {
      key: account.key,
      env: { DB },
      headers: { 'x-d1-bookmark': bookmark },
    })
    expect(sessions).toEqual(['first-unconstrained', bookmark])
  })

  it('ignores what is not a bookmark, in the header or the cookie', async () => {
    const account = await newAccount()
    const hostile = [
      'garbage',
      'first-primary',
      'x'.repeat(10_000),
      '00000000-00000001-00000000-0000000000000000000000000000000G',
      '00000000-00000001-00000000-00000000000000000000000000000000; drop table canvases',
      '../../etc/passwd',
    ]
    for (const value of hostile) {
      const { DB, sessions } = sessionSpy()
      for (const sent of [
        { headers: { 'x-d1-bookmark': value } },
        { cookie: `canvas_bookmark=${encodeURIComponent(value)}` },
      ]) {
        const res = await call('/v1/canvases', { key: account.key, env: { DB }, ...sent })
        expect(res.status, value.slice(0, 40)).toBe(200)
        expect(bookmarkOf(res)).toMatch(BOOKMARK)
      }
      expect(sessions).toEqual(['first-unconstrained', 'first-unconstrained'])
    }
  })

  it('the meter sees a session’s statements as the binding’s', async () => {
    const account = await newAccount()
    const { db, meter } = meteredD1(env.DB)
    const res = await call('/v1/canvases', { key: account.key, env: { DB: db } })
    expect(res.status).toBe(200)
    expect(meter.roundTrips).toBeGreaterThanOrEqual(1)
    expect(meter.rowsRead).toBeGreaterThanOrEqual(1)
  })
})

describe('the web app', () => {
  it('a form post leaves the bookmark in a cookie, a read or an API write does not', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'to keep')
    const posted = await call(`/c/${canvas.canvas_id}/permanent`, {
      ...formPost({ _csrf: await csrfOf(account.cookie) }),
      cookie: account.cookie,
    })
    expect(posted.status).toBe(302)
    const cookie = /canvas_bookmark=([^;]+); Max-Age=300; Path=\/; HttpOnly; SameSite=Lax/.exec(
      posted.headers.get('Set-Cookie') ?? '',
    )
    expect(cookie?.[1]).toMatch(BOOKMARK)
    // The page the redirect leads to, with the cookie, shows the write.
    const page = await call(posted.headers.get('Location')!, {
      cookie: `${account.cookie}; canvas_bookmark=${cookie![1]}`,
    })
    expect(await page.text()).toContain('permanent')
    const read = await call(`/c/${canvas.canvas_id}`, { cookie: account.cookie })
    expect(read.headers.get('Set-Cookie') ?? '').not.toContain('canvas_bookmark')
    const api = await call(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'PATCH',
      key: account.key,
      json: { title: 'renamed' },
    })
    expect(api.headers.get('Set-Cookie') ?? '').not.toContain('canvas_bookmark')
  })
})
