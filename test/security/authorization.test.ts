import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { bytesOf, call, errorOf, json, sha256 } from '../support/api'
import { routeName, ROUTES, type Route } from '../support/routes'
import { snapshot } from '../support/state'
import { buildWorld, requestFor, type World } from '../support/world'

// The authorization matrix (docs/api.md): every route of the table under every way of
// getting its credentials wrong answers exactly the status and code the contract names, changes
// nothing, and never shows another workspace's data.

let world: World
beforeAll(async () => {
  world = await buildWorld()
})

const keyRoutes = ROUTES.filter((r) => r.auth === 'key')
const sessionRoutes = ROUTES.filter((r) => r.auth === 'session')
// The home page is a page too, but shows a visitor without a session the landing page instead.
const isHome = (r: Route) => r.method === 'GET' && r.path === '/'
const pageRoutes = ROUTES.filter((r) => r.auth === 'page' && !isHome(r))
const canvasRoutes = keyRoutes.filter((r) => r.path.includes(':id'))

const missing = errorOf('unauthorized', 'missing API key: send Authorization: Bearer <key>')
const malformed = errorOf('unauthorized', 'malformed Authorization header: expected Bearer <key>')
const invalid = errorOf('unauthorized', 'invalid or revoked API key')

type Case = { name: string; headers: (w: World) => Record<string, string>; body: unknown }
const keyCases: Case[] = [
  { name: 'no header', headers: () => ({}), body: missing },
  { name: 'Basic auth', headers: () => ({ Authorization: 'Basic dXNlcjpwYXNz' }), body: malformed },
  { name: 'Bearer alone', headers: () => ({ Authorization: 'Bearer' }), body: malformed },
  { name: 'two tokens', headers: () => ({ Authorization: 'Bearer a b' }), body: malformed },
  {
    name: 'unknown key',
    headers: () => ({ Authorization: `Bearer svc_${'A1b2C3d4E5'.repeat(4)}` }),
    body: invalid,
  },
  { name: 'not a key', headers: () => ({ Authorization: 'Bearer hello' }), body: invalid },
  {
    name: 'revoked key',
    headers: (w) => ({ Authorization: `Bearer ${w.revokedKey}` }),
    body: invalid,
  },
]

async function send(route: Route, extra: { headers?: Record<string, string>; cookie?: string }) {
  const { path, init } = requestFor(route, world)
  const res = await call(path, {
    ...init,
    cookie: extra.cookie,
    headers: { ...(init.headers as Record<string, string>), ...extra.headers },
  })
  return { res, text: await res.text() }
}

/** Nothing of the owner's may appear in an answer given to anyone else. */
function expectNoOwnerData(text: string, where: string) {
  for (const secret of [
    world.canvasId,
    world.title,
    world.token,
    world.owner.email,
    world.owner.workspaceId,
    world.content.fileId,
    world.content.sha256,
  ]) {
    expect(text.includes(secret), `${where} shows ${secret}`).toBe(false)
  }
}

/** A session of the other account, expired in the database. */
async function expiredSession() {
  const login = await call('/auth/login', {
    method: 'POST',
    json: { email: world.other.email, password: world.other.password },
  })
  const cookie = /canvas_session=[^;]*/.exec(login.headers.get('Set-Cookie')!)![0]
  expect((await call('/auth/keys', { cookie })).status).toBe(200)
  await env.DB.prepare('UPDATE sessions SET expires_at = ? WHERE session_hash = ?')
    .bind(Date.now() - 1000, await sha256(bytesOf(cookie.split('=')[1])))
    .run()
  return cookie
}

describe('API keys on every /v1 route', () => {
  it('refuses missing, malformed, unknown and revoked keys with 401, changing nothing', async () => {
    const before = await snapshot(world.owner.workspaceId)
    for (const route of keyRoutes) {
      for (const c of keyCases) {
        const { res, text } = await send(route, { headers: c.headers(world) })
        const where = `${routeName(route)} with ${c.name}`
        expect(res.status, where).toBe(401)
        expect(JSON.parse(text), where).toEqual(c.body)
        expectNoOwnerData(text, where)
      }
    }
    expect(await snapshot(world.owner.workspaceId)).toEqual(before)
  })

  it('refuses a read-only key on every write with 403, and lets it read', async () => {
    const before = await snapshot(world.owner.workspaceId)
    for (const route of keyRoutes) {
      const { res, text } = await send(route, {
        headers: { Authorization: `Bearer ${world.readOnlyKey}` },
      })
      if (route.scope === 'write') {
        expect(res.status, routeName(route)).toBe(403)
        expect(JSON.parse(text), routeName(route)).toEqual(
          errorOf('forbidden', "this API key lacks the 'write' scope"),
        )
      } else {
        expect(res.status, routeName(route)).toBeLessThan(400)
      }
    }
    expect(await snapshot(world.owner.workspaceId)).toEqual(before)
  })

  it("answers another workspace's key on the owner's canvas as if it did not exist", async () => {
    const before = await snapshot(world.owner.workspaceId)
    for (const route of canvasRoutes) {
      const { res, text } = await send(route, {
        headers: { Authorization: `Bearer ${world.other.key}` },
      })
      expect(res.status, routeName(route)).toBe(404)
      expect(JSON.parse(text), routeName(route)).toEqual(
        errorOf('canvas_not_found', 'canvas not found'),
      )
    }
    expect(await snapshot(world.owner.workspaceId)).toEqual(before)
  })

  it("never shows the owner's data on the other workspace's own routes", async () => {
    const before = await snapshot(world.owner.workspaceId)
    const headers = { Authorization: `Bearer ${world.other.key}` }
    for (const route of keyRoutes.filter((r) => !r.path.includes(':id'))) {
      const { res, text } = await send(route, { headers })
      expectNoOwnerData(text, routeName(route))
      expect(res.status, routeName(route)).toBeLessThan(500)
    }
    // The owner's file is not the other workspace's to use, even knowing its id and digest.
    const create = await call('/v1/canvases', {
      method: 'POST',
      headers,
      json: { file_id: world.content.fileId, title: 'stolen', ext: 'txt' },
    })
    expect(create.status).toBe(404)
    expect(await json(create)).toEqual(errorOf('file_not_found', 'file_id: no such file'))
    const { sha256, ext, size, mime } = world.content
    const presign = await json(
      await call('/v1/upload/presign', {
        method: 'POST',
        headers,
        json: { sha256, ext, size, mime },
      }),
    )
    expect(presign.exists).toBe(false)
    expect(presign.file_id).not.toBe(world.content.fileId)
    expect(presign.blob_key).not.toContain(world.owner.workspaceId)
    expect(await snapshot(world.owner.workspaceId)).toEqual(before)
  })
})

describe('session routes', () => {
  it('answer 401 without a session or with an expired one', async () => {
    const expired = await expiredSession()
    const before = await snapshot(world.owner.workspaceId)
    for (const route of sessionRoutes) {
      for (const cookie of [undefined, expired, 'canvas_session=forged']) {
        const { res, text } = await send(route, { cookie })
        expect(res.status, routeName(route)).toBe(401)
        expect(JSON.parse(text), routeName(route)).toEqual(errorOf('unauthorized', 'not logged in'))
      }
    }
    expect(await snapshot(world.owner.workspaceId)).toEqual(before)
  })

  it('refuse a cross-origin write with 403, whatever the session', async () => {
    const before = await snapshot(world.owner.workspaceId)
    const jsonWrites = ROUTES.filter((r) => r.path.startsWith('/auth/') && r.method !== 'GET')
    for (const route of jsonWrites) {
      const crossOrigin: Record<string, string>[] = [
        { Origin: 'https://evil.example' },
        { 'Sec-Fetch-Site': 'cross-site' },
        { Origin: 'null' },
      ]
      for (const headers of crossOrigin) {
        const { res, text } = await send(route, { cookie: world.owner.cookie, headers })
        expect(res.status, routeName(route)).toBe(403)
        expect(JSON.parse(text), routeName(route)).toEqual(
          errorOf('forbidden', 'cross-origin request refused'),
        )
      }
    }
    expect(await snapshot(world.owner.workspaceId)).toEqual(before)
  })

  it("do not reach another workspace's keys", async () => {
    const list = await call('/auth/keys', { cookie: world.other.cookie })
    expectNoOwnerData(await list.text(), 'GET /auth/keys')
    const revoke = await call(`/auth/keys/${world.spareKeyId}`, {
      method: 'DELETE',
      cookie: world.other.cookie,
    })
    expect(revoke.status).toBe(404)
    expect(await json(revoke)).toEqual(errorOf('not_found', 'key_id: no such API key'))
    const keys = await json(await call('/auth/keys', { cookie: world.owner.cookie }))
    expect(keys.keys.find((k: any) => k.key_id === world.spareKeyId)).toBeTruthy()
  })
})

describe('web pages', () => {
  it('send to the login page without a session or with an expired one', async () => {
    const expired = await expiredSession()
    const before = await snapshot(world.owner.workspaceId)
    for (const route of pageRoutes) {
      for (const cookie of [undefined, expired, 'canvas_session=forged']) {
        const { res } = await send(route, { cookie })
        expect(res.status, routeName(route)).toBe(302)
        expect(res.headers.get('Location'), routeName(route)).toMatch(/^\/login(\?next=|$)/)
      }
    }
    for (const cookie of [undefined, expired, 'canvas_session=forged']) {
      const home = await call('/', { cookie })
      expect(home.status).toBe(200)
      const text = await home.text()
      expect(text).toContain('href="/login"')
      expectNoOwnerData(text, 'GET / without a session')
    }
    expect(await snapshot(world.owner.workspaceId)).toEqual(before)
  })

  it('refuse cross-origin form posts with a 403 page', async () => {
    const before = await snapshot(world.owner.workspaceId)
    const posts = ROUTES.filter((r) => !r.json && r.method === 'POST')
    for (const route of posts) {
      const { res, text } = await send(route, {
        cookie: world.owner.cookie,
        headers: { Origin: 'https://evil.example' },
      })
      expect(res.status, routeName(route)).toBe(403)
      expect(res.headers.get('Content-Type'), routeName(route)).toMatch(/^text\/html/)
      expect(text, routeName(route)).toMatch(/cross-origin request refused/i)
    }
    expect(await snapshot(world.owner.workspaceId)).toEqual(before)
  })

  it("show another workspace nothing of the owner's private canvas", async () => {
    for (const path of [`/c/${world.canvasId}`, `/c/${world.canvasId}/download`]) {
      for (const cookie of [world.other.cookie, undefined]) {
        const res = await call(path, { cookie })
        expect([302, 404], path).toContain(res.status)
        if (res.status === 302) expect(res.headers.get('Location')).toMatch(/^\/login\?next=/)
        expectNoOwnerData(await res.text(), path)
      }
    }
    const page = await call(`/c/${world.canvasId}/delete`, { cookie: world.other.cookie })
    expect(page.status).toBe(404)
    expectNoOwnerData(await page.text(), 'GET /c/:id/delete')
  })
})

describe('signed URLs', () => {
  /** The same URL with one character of its signature changed. */
  const tamper = (url: string, param: string) => {
    const u = new URL(url)
    const sig = u.searchParams.get(param)!
    u.searchParams.set(param, (sig[0] === 'a' ? 'b' : 'a') + sig.slice(1))
    return u.toString()
  }

  it('storage refuses a missing, altered or borrowed signature with 403', async () => {
    const { sha256: hash, ext, size, mime } = world.content
    const presign = await json(
      await call('/v1/upload/presign', {
        method: 'POST',
        key: world.owner.key,
        json: { sha256: 'e'.repeat(64), ext, size, mime },
      }),
    )
    const content = await call(`/v1/canvases/${world.canvasId}/content`, { key: world.owner.key })
    const download = content.headers.get('Location')!
    const before = await snapshot(world.owner.workspaceId)
    const bad = errorOf('forbidden', 'the signature does not match')
    const cases: [string, string, unknown][] = [
      ['PUT', presign.upload_url.split('?')[0], bad],
      ['PUT', tamper(presign.upload_url, 'X-Amz-Signature'), bad],
      // A GET signature does not allow a PUT of the same key, nor the other way round.
      ['PUT', download, bad],
      ['GET', presign.upload_url, bad],
      ['GET', download.split('?')[0], bad],
      ['GET', tamper(download, 'X-Amz-Signature'), bad],
      // Another key under a valid signature's query.
      ['GET', download.replace(hash, 'd'.repeat(64)), bad],
    ]
    for (const [method, url, body] of cases) {
      const res = await call(url, { method, body: method === 'PUT' ? bytesOf('abc') : undefined })
      expect(res.status, `${method} ${url}`).toBe(403)
      expect(await json(res), `${method} ${url}`).toEqual(body)
    }
    expect(await snapshot(world.owner.workspaceId)).toEqual(before)
  })

  it('content frames refuse a missing or altered signature', async () => {
    const viewer = await (await call(`/c/${world.canvasId}`, { cookie: world.owner.cookie })).text()
    const src = /<iframe[^>]* src="([^"]+)"/.exec(viewer)![1].replaceAll('&amp;', '&')
    expect((await call(src)).status).toBe(200)
    for (const url of [src.split('?')[0], tamper(src, 'sig'), src.replace('/1?', '/2?')]) {
      const res = await call(url)
      expect(res.status, url).toBe(403)
      expectNoOwnerData(await res.text(), url)
    }
  })
})
