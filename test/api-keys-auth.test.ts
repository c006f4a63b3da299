import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { bytesOf, call, errorOf, json, newAccount, newCanvas, newKey, sha256 } from './support/api'
import { freshAddress, withinOneWindow } from './support/limit-window'

describe('bearer auth on /v1', () => {
  it('401 for a missing, malformed or unknown key', async () => {
    const cases: [Record<string, string>, string][] = [
      [{}, 'missing API key: send Authorization: Bearer <key>'],
      [{ Authorization: 'Basic abc' }, 'malformed Authorization header: expected Bearer <key>'],
      [{ Authorization: 'Bearer' }, 'malformed Authorization header: expected Bearer <key>'],
      [{ Authorization: 'Bearer svc_' + 'a'.repeat(40) }, 'invalid or revoked API key'],
      [{ Authorization: 'Bearer not-a-key' }, 'invalid or revoked API key'],
    ]
    for (const [headers, message] of cases) {
      for (const path of ['/v1/me', '/v1/canvases', '/v1/nope']) {
        const res = await call(path, { headers })
        expect(res.status).toBe(401)
        expect(await json(res)).toEqual(errorOf('unauthorized', message))
      }
    }
  })

  it('403 when a read-only key writes; reads are fine', async () => {
    const account = await newAccount()
    const readOnly = await newKey(account.cookie, ['read'])
    expect((await call('/v1/canvases', { key: readOnly })).status).toBe(200)
    const res = await call('/v1/upload/presign', {
      method: 'POST',
      key: readOnly,
      json: { sha256: '0'.repeat(64), ext: 'txt', size: 1, mime: 'text/plain' },
    })
    expect(res.status).toBe(403)
    expect(await json(res)).toEqual(errorOf('forbidden', "this API key lacks the 'write' scope"))
    expect(
      await env.DB.prepare('SELECT 1 FROM files WHERE workspace_id = ?')
        .bind(account.workspaceId)
        .first(),
    ).toBeNull()
  })

  it('judges the key before the request, on routes that batch their own statements too', async () => {
    const account = await newAccount()
    const readOnly = await newKey(account.cookie, ['read'])
    const unknown = 'svc_' + 'a'.repeat(40)
    const presign = (key: string, json: unknown) =>
      call('/v1/upload/presign', { method: 'POST', key, json })
    const big = { sha256: '2'.repeat(64), ext: 'txt', size: 2 ** 40, mime: 'text/plain' }
    const cases: [string, () => Promise<Response>, number, string][] = [
      ['bad limit, unknown key', () => call('/v1/canvases?limit=0', { key: unknown }), 401, ''],
      ['bad cursor, unknown key', () => call('/v1/canvases?cursor=x', { key: unknown }), 401, ''],
      ['bad limit', () => call('/v1/canvases?limit=0', { key: account.key }), 400, 'limit'],
      ['bad cursor', () => call('/v1/canvases?cursor=x', { key: account.key }), 400, 'cursor'],
      ['bad body, unknown key', () => presign(unknown, { sha256: 'x' }), 401, ''],
      ['bad body, read-only key', () => presign(readOnly, { sha256: 'x' }), 403, ''],
      ['too large, read-only key', () => presign(readOnly, big), 403, ''],
      ['bad body', () => presign(account.key, { sha256: 'x' }), 400, 'sha256'],
      ['too large', () => presign(account.key, big), 413, 'size'],
    ]
    for (const [name, send, status, field] of cases) {
      const res = await send()
      expect(res.status, name).toBe(status)
      expect((await json(res)).error.message, name).toMatch(field)
    }
    expect(
      await env.DB.prepare('SELECT 1 FROM files WHERE workspace_id = ?')
        .bind(account.workspaceId)
        .first(),
    ).toBeNull()
  })

  it('unknown /v1 routes are JSON 404 for a valid key', async () => {
    const account = await newAccount()
    const res = await call('/v1/nope', { key: account.key })
    expect(res.status).toBe(404)
    expect(await json(res)).toEqual(errorOf('not_found', 'no such route'))
  })

  it('records last_used_at after the response, at most once a minute', async () => {
    const account = await newAccount()
    const read = () =>
      env.DB.prepare('SELECT last_used_at FROM api_keys WHERE workspace_id = ?')
        .bind(account.workspaceId)
        .first<any>()
    expect((await read()).last_used_at).toBeNull()
    await call('/v1/me', { key: account.key })
    const first = (await read()).last_used_at
    expect(first).toBeGreaterThan(Date.now() - 10_000)
    await call('/v1/me', { key: account.key })
    expect((await read()).last_used_at).toBe(first)
  })

  it('authenticated responses are not cached', async () => {
    const account = await newAccount()
    const res = await call('/v1/me', { key: account.key })
    expect(res.headers.get('Cache-Control')).toBe('no-store')
  })
})

describe('rate limits', () => {
  it('counts a presign once, whether its body is good or not', async () => {
    const limited = { API_LIMITER: env.API_LIMITER_SMALL }
    // Presign asks the limit before reading its body; a bad body then has the key judged alone,
    // on that same verdict. Five requests fit the small limit; the sixth is refused.
    const bodies = [
      { sha256: 'nope' },
      { sha256: '4'.repeat(64), ext: 'txt', size: 1, mime: 'text/plain' },
    ]
    const account = await newAccount()
    // A new key each run: what a straddling run sent after the minute turned counts in the next.
    await withinOneWindow(async () => {
      const key = await newKey(account.cookie)
      const seen: number[] = []
      for (let i = 0; i < 5; i++) {
        const res = await call('/v1/upload/presign', {
          method: 'POST',
          key,
          json: bodies[i % 2],
          env: limited,
        })
        seen.push(res.status)
      }
      seen.push((await call('/v1/me', { key, env: limited })).status)
      expect(seen).toEqual([400, 200, 400, 200, 400, 429])
    })
  })

  it('429 with Retry-After past the per-key limit', async () => {
    const account = await newAccount()
    const limited = { API_LIMITER: env.API_LIMITER_SMALL }
    // A new key and canvas each run: what a straddling run sent after the minute turned counts in
    // the next window, and its write went through.
    await withinOneWindow(async () => {
      const key = await newKey(account.cookie)
      const canvas = await newCanvas(key)
      let res: Response | undefined
      for (let i = 0; i < 20; i++) {
        res = await call('/v1/me', { key, env: limited })
        if (res.status === 429) break
      }
      expect(res!.status).toBe(429)
      expect(res!.headers.get('Retry-After')).toBe('60')
      expect(await json(res!)).toEqual(errorOf('rate_limited', 'too many requests; retry in 60 s'))
      // The canvas read, which asks the limiter beside its batched D1 lookup, is refused too.
      const read = await call(`/v1/canvases/${canvas.canvas_id}`, { key, env: limited })
      expect(read.status).toBe(429)
      expect(await json(read)).toEqual(errorOf('rate_limited', 'too many requests; retry in 60 s'))
      // So are the list and presign, which batch their statements with the lookup too; a refused
      // presign registers nothing.
      expect((await call('/v1/canvases', { key, env: limited })).status).toBe(429)
      // A file of its own: a straddling run's presign, let through, registered its own.
      const digest = await sha256(bytesOf(key))
      const presign = await call('/v1/upload/presign', {
        method: 'POST',
        key,
        json: { sha256: digest, ext: 'txt', size: 1, mime: 'text/plain' },
        env: limited,
      })
      expect(presign.status).toBe(429)
      expect(
        await env.DB.prepare('SELECT 1 FROM files WHERE sha256 = ?').bind(digest).first(),
      ).toBeNull()
      // A refused write changes nothing.
      const write = await call(`/v1/canvases/${canvas.canvas_id}`, {
        method: 'PATCH',
        key,
        json: { title: 'changed' },
        env: limited,
      })
      expect(write.status).toBe(429)
      // Another key has its own budget.
      const other = await newKey(account.cookie)
      expect((await call('/v1/me', { key: other, env: limited })).status).toBe(200)
      expect(
        await json(await call(`/v1/canvases/${canvas.canvas_id}`, { key: other })),
      ).toMatchObject({ title: 'A canvas' })
    })
  })

  it('429 per client IP on /auth', async () => {
    const login = (ip: string) =>
      call('/auth/login', {
        method: 'POST',
        json: { email: 'x@example.com', password: 'whatever1' },
        ip,
        env: { AUTH_LIMITER: env.AUTH_LIMITER_SMALL },
      })
    await withinOneWindow(async (ip) => {
      const answers = []
      for (let i = 0; i < 6; i++) answers.push(await login(ip))
      expect(answers.map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 429])
      expect(answers[5].headers.get('Retry-After')).toBe('60')
    })
    // Another address has a budget of its own.
    expect((await login(freshAddress())).status).toBe(401)
  })
})

describe('/v1/me, /v1/renderers', () => {
  it('/v1/me names the user, workspace and key', async () => {
    const account = await newAccount()
    const res = await call('/v1/me', { key: account.key })
    expect(res.status).toBe(200)
    expect(await json(res)).toEqual({
      user: { user_id: account.userId, email: account.email },
      workspace: {
        workspace_id: account.workspaceId,
        name: account.email.split('@')[0],
        role: 'owner',
      },
      key: { key_id: expect.any(String), name: 'test key', scopes: ['read', 'write'] },
    })
  })

  it('/v1/renderers lists the registry', async () => {
    const account = await newAccount()
    const body = await json(await call('/v1/renderers', { key: account.key }))
    expect(body.renderers.map((r: any) => r.renderer_id)).toEqual([
      'html',
      'markdown',
      'code',
      'json',
      'mermaid',
      'notebook',
      'vega',
      'csv',
      'image',
      'pdf',
      'media',
      'text',
      'download',
    ])
    expect(body.renderers[0]).toEqual({
      renderer_id: 'html',
      name: 'HTML page',
      exts: ['html', 'htm'],
      scripts: true,
    })
  })
})
