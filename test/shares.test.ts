import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { bytesOf, call, errorOf, follow, json, newAccount, newCanvas, upload } from './support/api'
import { freshAddress, withinOneWindow } from './support/limit-window'

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

async function share(key: string, canvasId: string, body?: unknown) {
  return call(`/v1/canvases/${canvasId}/shares`, { method: 'POST', key, json: body })
}

// Permanent, so that a link's own expiry is what these tests see (a temporary canvas's caps it).
async function setup(text = 'shared content', permanent = true) {
  const account = await newAccount()
  const canvas = await newCanvas(account.key, text, { title: 'Shared', permanent })
  return { account, canvas }
}

describe('creating share links', () => {
  it('creates a never-expiring link with a 128-bit token by default (no body needed)', async () => {
    const { account, canvas } = await setup()
    const res = await call(`/v1/canvases/${canvas.canvas_id}/shares`, {
      method: 'POST',
      key: account.key,
    })
    expect(res.status).toBe(201)
    const link = await json(res)
    expect(link).toEqual({
      token: expect.stringMatching(/^[A-Za-z0-9]{22}$/),
      canvas_id: canvas.canvas_id,
      expires_at: null,
      view_count: 0,
      max_views: null,
      version: null,
      follow: 'latest',
      has_password: false,
      allow_comments: false,
      created_at: expect.stringMatching(ISO),
    })
  })

  it('takes expires_in, password, max_views, version and a custom token', async () => {
    const { account, canvas } = await setup()
    const res = await share(account.key, canvas.canvas_id, {
      expires_in: '2h',
      password: 'open sesame',
      max_views: 3,
      version: 1,
      token: 'my-custom_token',
    })
    expect(res.status).toBe(201)
    const link = await json(res)
    expect(link).toMatchObject({
      token: 'my-custom_token',
      max_views: 3,
      version: 1,
      has_password: true,
      allow_comments: false,
    })
    expect(Date.parse(link.expires_at) - Date.parse(link.created_at)).toBe(2 * 3600 * 1000)
    expect(JSON.stringify(link)).not.toContain('open sesame')
    const row = await env.DB.prepare('SELECT password_hash FROM share_links WHERE token = ?')
      .bind('my-custom_token')
      .first<any>()
    expect(row.password_hash).toMatch(/^pbkdf2-sha256\$/)
    const taken = await share(account.key, canvas.canvas_id, { token: 'my-custom_token' })
    expect(taken.status).toBe(409)
    expect(await json(taken)).toEqual(
      errorOf('share_token_taken', 'token: this share token is already in use'),
    )
  })

  it('every duration unit, and the bounds', async () => {
    const { account, canvas } = await setup()
    for (const [value, seconds] of [
      ['45s', 45],
      ['30m', 1800],
      ['24h', 86400],
      ['7d', 604800],
      ['2w', 1209600],
      ['365d', 31536000],
    ] as const) {
      const link = await json(await share(account.key, canvas.canvas_id, { expires_in: value }))
      expect(Date.parse(link.expires_at) - Date.parse(link.created_at), value).toBe(seconds * 1000)
    }
    const cases: [unknown, string][] = [
      [{ expires_in: '366d' }, 'expires_in: must be at most 365d'],
      [
        { expires_in: '0h' },
        'expires_in: must be a duration such as 30m, 24h or 7d (units s, m, h, d, w)',
      ],
      [
        { expires_in: '1y' },
        'expires_in: must be a duration such as 30m, 24h or 7d (units s, m, h, d, w)',
      ],
      [{ expires_in: 3600 }, 'expires_in: Invalid input: expected string, received number'],
      [{ password: 'abc' }, 'password: must be at least 4 characters'],
      [{ password: 'p'.repeat(257) }, 'password: must be at most 256 characters'],
      [
        { password: 'pass\udfff' },
        'password: must not contain unpaired surrogates (half of a character)',
      ],
      [{ max_views: 0 }, 'max_views: must be at least 1'],
      [{ max_views: 1_000_001 }, 'max_views: must be at most 1000000'],
      [{ version: 0 }, 'version: must be at least 1'],
      [{ token: 'short' }, 'token: must be 8 to 64 letters, digits, _ or -'],
      [{ token: 'has space in it' }, 'token: must be 8 to 64 letters, digits, _ or -'],
      [{ expires: '1h' }, 'Unrecognized key: "expires"'],
    ]
    for (const [body, message] of cases) {
      const res = await share(account.key, canvas.canvas_id, body)
      expect(res.status).toBe(400)
      expect(await json(res)).toEqual(errorOf('invalid_request', message))
    }
  })

  it('a link never outlives its temporary canvas: expires_at is the earlier of the two', async () => {
    const { account, canvas } = await setup('temporary', false)
    const canvasExpiry = canvas.expires_at
    expect(canvasExpiry).toMatch(ISO)
    const week = await json(await share(account.key, canvas.canvas_id, { expires_in: '7d' }))
    const forever = await json(await share(account.key, canvas.canvas_id))
    const hour = await json(await share(account.key, canvas.canvas_id, { expires_in: '1h' }))
    expect(week.expires_at).toBe(canvasExpiry)
    expect(forever.expires_at).toBe(canvasExpiry)
    expect(Date.parse(hour.expires_at)).toBeLessThan(Date.parse(canvasExpiry))
    // Every surface says the same: the list, the public metadata.
    const listed = await json(
      await call(`/v1/canvases/${canvas.canvas_id}/shares`, { key: account.key }),
    )
    const byToken = new Map(listed.shares.map((l: any) => [l.token, l.expires_at]))
    expect(byToken.get(week.token)).toBe(canvasExpiry)
    expect(byToken.get(forever.token)).toBe(canvasExpiry)
    expect(byToken.get(hour.token)).toBe(hour.expires_at)
    expect((await json(await call(`/share/${week.token}`))).share.expires_at).toBe(canvasExpiry)
    // Saved, the canvas no longer caps its links: each lives as long as it was asked to.
    await call(`/v1/canvases/${canvas.canvas_id}/permanent`, { method: 'POST', key: account.key })
    const saved = await json(
      await call(`/v1/canvases/${canvas.canvas_id}/shares`, { key: account.key }),
    )
    const after = new Map(saved.shares.map((l: any) => [l.token, l.expires_at]))
    expect(Date.parse(after.get(week.token) as string) - Date.parse(week.created_at)).toBe(
      7 * 86400 * 1000,
    )
    expect(after.get(forever.token)).toBeNull()
    expect((await json(await call(`/share/${forever.token}`))).share.expires_at).toBeNull()
  })

  it('a version that does not exist, or a canvas that is not ours', async () => {
    const { account, canvas } = await setup()
    const missing = await share(account.key, canvas.canvas_id, { version: 2 })
    expect(missing.status).toBe(404)
    expect(await json(missing)).toEqual(
      errorOf('version_not_found', 'version: canvas has no version 2'),
    )
    const other = await newAccount()
    for (const res of [
      await share(other.key, canvas.canvas_id),
      await call(`/v1/canvases/${canvas.canvas_id}/shares`, { key: other.key }),
      await call(`/v1/canvases/${canvas.canvas_id}/shares`, { method: 'DELETE', key: other.key }),
    ]) {
      expect(res.status).toBe(404)
      expect(await json(res)).toEqual(errorOf('canvas_not_found', 'canvas not found'))
    }
    const count = await env.DB.prepare('SELECT COUNT(*) AS n FROM share_links WHERE canvas_id = ?')
      .bind(canvas.canvas_id)
      .first<any>()
    expect(count.n).toBe(0)
  })
})

describe('listing and revoking', () => {
  it('lists links newest first, revokes one, then all', async () => {
    const { account, canvas } = await setup()
    const a = await json(await share(account.key, canvas.canvas_id, { token: 'token-aaaa' }))
    const b = await json(
      await share(account.key, canvas.canvas_id, { token: 'token-bbbb', password: 'pass' }),
    )
    const c = await json(await share(account.key, canvas.canvas_id))
    const list = await json(
      await call(`/v1/canvases/${canvas.canvas_id}/shares`, { key: account.key }),
    )
    expect(list.shares.map((s: any) => s.token).sort()).toEqual([a.token, b.token, c.token].sort())
    expect(list.shares.find((s: any) => s.token === b.token)).toEqual(b)

    const one = await call(`/v1/canvases/${canvas.canvas_id}/shares/${a.token}`, {
      method: 'DELETE',
      key: account.key,
    })
    expect(one.status).toBe(200)
    expect(await json(one)).toEqual({ success: true })
    const again = await call(`/v1/canvases/${canvas.canvas_id}/shares/${a.token}`, {
      method: 'DELETE',
      key: account.key,
    })
    expect(again.status).toBe(404)
    expect(await json(again)).toEqual(errorOf('share_not_found', 'share link not found'))
    expect((await call(`/share/${a.token}`)).status).toBe(404)

    const all = await call(`/v1/canvases/${canvas.canvas_id}/shares`, {
      method: 'DELETE',
      key: account.key,
    })
    expect(all.status).toBe(200)
    expect(await json(all)).toEqual({ success: true, revoked: 2 })
    expect(
      (await json(await call(`/v1/canvases/${canvas.canvas_id}/shares`, { key: account.key })))
        .shares,
    ).toEqual([])
    const none = await call(`/v1/canvases/${canvas.canvas_id}/shares`, {
      method: 'DELETE',
      key: account.key,
    })
    expect(await json(none)).toEqual({ success: true, revoked: 0 })
  })

  it('cannot revoke a link through another canvas', async () => {
    const { account, canvas } = await setup()
    const other = await newCanvas(account.key, 'other')
    const link = await json(await share(account.key, canvas.canvas_id))
    const res = await call(`/v1/canvases/${other.canvas_id}/shares/${link.token}`, {
      method: 'DELETE',
      key: account.key,
    })
    expect(res.status).toBe(404)
    expect((await call(`/share/${link.token}`)).status).toBe(200)
  })

  it('a read-only key cannot create or revoke links', async () => {
    const { account, canvas } = await setup()
    const readRes = await call('/auth/keys', {
      method: 'POST',
      cookie: account.cookie,
      json: { name: 'r', scopes: ['read'] },
    })
    const readOnly = (await json(readRes)).key
    expect((await share(readOnly, canvas.canvas_id)).status).toBe(403)
    expect(
      (await call(`/v1/canvases/${canvas.canvas_id}/shares`, { method: 'DELETE', key: readOnly }))
        .status,
    ).toBe(403)
    expect((await call(`/v1/canvases/${canvas.canvas_id}/shares`, { key: readOnly })).status).toBe(
      200,
    )
  })
})

describe('public routes', () => {
  it('metadata without auth, never counting a view', async () => {
    const { account, canvas } = await setup()
    const link = await json(await share(account.key, canvas.canvas_id, { expires_in: '1d' }))
    const res = await call(`/share/${link.token}`)
    expect(res.status).toBe(200)
    expect(res.headers.get('Cache-Control')).toBe('no-store')
    expect(await json(res)).toEqual({
      canvas: {
        title: 'Shared',
        ext: 'txt',
        renderer_id: 'text',
        version: 1,
        size: 14,
        created_at: canvas.created_at,
      },
      share: {
        expires_at: link.expires_at,
        view_count: 0,
        has_password: false,
        allow_comments: false,
      },
    })
    await call(`/share/${link.token}`)
    const row = await env.DB.prepare('SELECT view_count FROM share_links WHERE token = ?')
      .bind(link.token)
      .first<any>()
    expect(row.view_count).toBe(0)
  })

  it('content: 302 to a signed URL, counted once per delivery', async () => {
    const { account, canvas } = await setup()
    const link = await json(await share(account.key, canvas.canvas_id))
    const res = await call(`/share/${link.token}/content`)
    expect(res.status).toBe(302)
    expect(res.headers.get('Cache-Control')).toBe('no-store')
    const content = await follow(res)
    expect(await content.text()).toBe('shared content')
    expect(content.headers.get('Content-Disposition')).toMatch(/^inline; filename="Shared.txt"/)
    const dl = await follow(await call(`/share/${link.token}/content?dl=1`))
    expect(dl.headers.get('Content-Disposition')).toMatch(/^attachment; filename="Shared.txt"/)
    const meta = await json(await call(`/share/${link.token}`))
    expect(meta.share.view_count).toBe(2)
    const listed = await json(
      await call(`/v1/canvases/${canvas.canvas_id}/shares`, { key: account.key }),
    )
    expect(listed.shares[0].view_count).toBe(2)
  })

  it('unknown, expired, used-up links and a gone canvas', async () => {
    const { account, canvas } = await setup()
    for (const token of ['doesnotexist', 'x', '%00', 'a'.repeat(65)]) {
      for (const path of [`/share/${token}`, `/share/${token}/content`]) {
        const res = await call(path)
        expect(res.status, path).toBe(404)
        expect(await json(res)).toEqual(errorOf('share_not_found', 'share link not found'))
      }
    }
    const expired = await json(await share(account.key, canvas.canvas_id, { expires_in: '1h' }))
    await env.DB.prepare('UPDATE share_links SET expires_at = ? WHERE token = ?')
      .bind(Date.now() - 1, expired.token)
      .run()
    for (const path of [`/share/${expired.token}`, `/share/${expired.token}/content`]) {
      const res = await call(path)
      expect(res.status).toBe(410)
      expect(await json(res)).toEqual(errorOf('share_expired', 'this share link has expired'))
    }
    const once = await json(await share(account.key, canvas.canvas_id, { max_views: 1 }))
    expect((await call(`/share/${once.token}/content`)).status).toBe(302)
    for (const path of [`/share/${once.token}`, `/share/${once.token}/content`]) {
      const res = await call(path)
      expect(res.status).toBe(410)
      expect(await json(res)).toEqual(
        errorOf('share_exhausted', 'this share link has reached its view limit'),
      )
    }
    const live = await json(await share(account.key, canvas.canvas_id))
    await call(`/v1/canvases/${canvas.canvas_id}`, { method: 'DELETE', key: account.key })
    for (const path of [`/share/${live.token}`, `/share/${live.token}/content`]) {
      const res = await call(path)
      expect(res.status).toBe(404)
      expect(await json(res)).toEqual(errorOf('canvas_not_found', 'canvas not found'))
    }
  })

  it('an expired canvas answers canvas_not_found at once', async () => {
    const { account, canvas } = await setup()
    const link = await json(await share(account.key, canvas.canvas_id))
    await env.DB.prepare('UPDATE canvases SET expires_at = ? WHERE canvas_id = ?')
      .bind(Date.now() - 1, canvas.canvas_id)
      .run()
    const res = await call(`/share/${link.token}/content`)
    expect(res.status).toBe(404)
    expect(await json(res)).toEqual(errorOf('canvas_not_found', 'canvas not found'))
    const row = await env.DB.prepare('SELECT view_count FROM share_links WHERE token = ?')
      .bind(link.token)
      .first<any>()
    expect(row.view_count).toBe(0)
  })

  it('password-protected links', async () => {
    const { account, canvas } = await setup()
    const link = await json(await share(account.key, canvas.canvas_id, { password: 'open sesame' }))
    for (const path of [`/share/${link.token}`, `/share/${link.token}/content`]) {
      const missing = await call(path)
      expect(missing.status).toBe(401)
      expect(missing.headers.get('Cache-Control')).toBe('no-store')
      expect(await json(missing)).toEqual(
        errorOf('share_password_required', 'this share link needs a password: X-Share-Password'),
      )
      const wrong = await call(path, { headers: { 'X-Share-Password': 'nope' } })
      expect(wrong.status).toBe(403)
      expect(await json(wrong)).toEqual(
        errorOf('share_password_invalid', 'wrong password for this share link'),
      )
    }
    const meta = await call(`/share/${link.token}`, {
      headers: { 'X-Share-Password': 'open sesame' },
    })
    expect(meta.status).toBe(200)
    expect((await json(meta)).share).toEqual({
      expires_at: null,
      view_count: 0,
      has_password: true,
      allow_comments: false,
    })
    const res = await call(`/share/${link.token}/content`, {
      headers: { 'X-Share-Password': 'open sesame' },
    })
    expect(res.status).toBe(302)
    expect(res.headers.get('Cache-Control')).toBe('no-store')
    expect(await (await follow(res)).text()).toBe('shared content')
    const row = await env.DB.prepare('SELECT view_count FROM share_links WHERE token = ?')
      .bind(link.token)
      .first<any>()
    expect(row.view_count).toBe(1)
  })

  it('password attempts are rate-limited per link and client IP', async () => {
    const { account, canvas } = await setup()
    const link = await json(await share(account.key, canvas.canvas_id, { password: 'open sesame' }))
    const limited = { SHARE_PASSWORD_LIMITER: env.AUTH_LIMITER_SMALL }
    const attempt = (ip: string, password = 'guess') =>
      call(`/share/${link.token}`, { headers: { 'X-Share-Password': password }, ip, env: limited })
    await withinOneWindow(async (ip) => {
      const statuses = []
      for (let i = 0; i < 5; i++) statuses.push((await attempt(ip)).status)
      expect(statuses).toEqual([403, 403, 403, 403, 403])
      // Refused before the password is looked at, the right one too.
      const blocked = await attempt(ip, 'open sesame')
      expect(blocked.status).toBe(429)
      expect(blocked.headers.get('Retry-After')).toBe('60')
      expect(await json(blocked)).toEqual(
        errorOf('rate_limited', 'too many requests; retry in 60 s'),
      )
    })
    expect((await attempt(freshAddress(), 'open sesame')).status).toBe(200)
  })

  it('a pinned link keeps its version; an unpinned one follows the latest', async () => {
    const { account, canvas } = await setup('version one')
    const pinned = await json(await share(account.key, canvas.canvas_id, { version: 1 }))
    const latest = await json(await share(account.key, canvas.canvas_id))
    await call(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'PATCH',
      key: account.key,
      json: { file_id: await upload(account.key, bytesOf('version two')) },
    })
    expect(await (await follow(await call(`/share/${pinned.token}/content`))).text()).toBe(
      'version one',
    )
    expect(await (await follow(await call(`/share/${latest.token}/content`))).text()).toBe(
      'version two',
    )
    expect((await json(await call(`/share/${pinned.token}`))).canvas.version).toBe(1)
    expect((await json(await call(`/share/${latest.token}`))).canvas.version).toBe(2)
  })
})

describe('view counting under concurrency', () => {
  it('50 parallel downloads count exactly 50', async () => {
    const { account, canvas } = await setup()
    const link = await json(await share(account.key, canvas.canvas_id))
    const results = await Promise.all(
      Array.from({ length: 50 }, () => call(`/share/${link.token}/content`)),
    )
    expect(results.every((r) => r.status === 302)).toBe(true)
    const row = await env.DB.prepare('SELECT view_count FROM share_links WHERE token = ?')
      .bind(link.token)
      .first<any>()
    expect(row.view_count).toBe(50)
  })

  it('with max_views 10, exactly 10 of 50 parallel downloads succeed', async () => {
    const { account, canvas } = await setup()
    const link = await json(await share(account.key, canvas.canvas_id, { max_views: 10 }))
    const results = await Promise.all(
      Array.from({ length: 50 }, () => call(`/share/${link.token}/content`)),
    )
    const statuses = results.map((r) => r.status)
    expect(statuses.filter((s) => s === 302)).toHaveLength(10)
    expect(statuses.filter((s) => s === 410)).toHaveLength(40)
    const row = await env.DB.prepare('SELECT view_count FROM share_links WHERE token = ?')
      .bind(link.token)
      .first<any>()
    expect(row.view_count).toBe(10)
  })

  it('with a password and max_views 5, exactly 5 of 20 parallel downloads succeed', async () => {
    const { account, canvas } = await setup()
    const link = await json(
      await share(account.key, canvas.canvas_id, { max_views: 5, password: 'pw-pw' }),
    )
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        call(`/share/${link.token}/content`, { headers: { 'X-Share-Password': 'pw-pw' } }),
      ),
    )
    expect(results.filter((r) => r.status === 302)).toHaveLength(5)
    const row = await env.DB.prepare('SELECT view_count FROM share_links WHERE token = ?')
      .bind(link.token)
      .first<any>()
    expect(row.view_count).toBe(5)
  })
})
