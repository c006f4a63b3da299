import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { call, csrfOf, formPost, json, newAccount, newCanvas, REQUEST_ID } from './support/api'
import { freshAddress, withinOneWindow } from './support/limit-window'
import { countRows } from './support/state'

// The web routes at the HTTP level (the browser tests drive them in Chromium): redirects, CSRF,
// headers, and the signed content frames.

describe('pages', () => {
  it('show a visitor what Canvas is, send other pages to login, and carry strict headers', async () => {
    await newAccount()
    const home = await call('/')
    expect(home.status).toBe(200)
    const landing = await home.text()
    expect(landing).toContain('Canvas publishes your files as pages with a link')
    expect(landing).toContain('href="/login"')
    const settings = await call('/settings')
    expect(settings.headers.get('Location')).toBe('/login?next=%2Fsettings')
    const login = await call('/login')
    expect(login.status).toBe(200)
    expect(login.headers.get('Content-Security-Policy')).toContain("default-src 'self'")
    expect(login.headers.get('Content-Security-Policy')).toContain("frame-ancestors 'none'")
    expect(login.headers.get('X-Frame-Options')).toBe('DENY')
    expect(login.headers.get('Cache-Control')).toBe('no-store')
  })

  it('refuse a form post without the CSRF token or from another origin', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key)
    const noToken = await call(`/c/${canvas.canvas_id}/delete`, {
      cookie: account.cookie,
      ...formPost({}),
    })
    expect(noToken.status).toBe(403)
    const token = await csrfOf(account.cookie)
    const crossSite = await call(`/c/${canvas.canvas_id}/delete`, {
      cookie: account.cookie,
      ...formPost({ _csrf: token }),
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Origin: 'https://evil.example',
      },
    })
    expect(crossSite.status).toBe(403)
    expect((await call(`/v1/canvases/${canvas.canvas_id}`, { key: account.key })).status).toBe(200)
    const ok = await call(`/c/${canvas.canvas_id}/delete`, {
      cookie: account.cookie,
      ...formPost({ _csrf: token }),
    })
    expect(ok.status).toBe(302)
    expect((await call(`/v1/canvases/${canvas.canvas_id}`, { key: account.key })).status).toBe(404)
  })

  it('only follow local next= targets after login', async () => {
    const account = await newAccount()
    const evil = await call(
      '/login',
      formPost({ email: account.email, password: account.password, next: '//evil.example' }),
    )
    expect(evil.headers.get('Location')).toBe('/')
    const local = await call(
      '/login',
      formPost({ email: account.email, password: account.password, next: '/settings' }),
    )
    expect(local.headers.get('Location')).toBe('/settings')
  })

  it('404 pages are HTML off the API, JSON on it', async () => {
    const page = await call('/no/such/page')
    expect(page.status).toBe(404)
    expect(page.headers.get('Content-Type')).toMatch(/^text\/html/)
    const api = await call('/share/nope-nope-nope')
    expect(await json(api)).toEqual({
      error: { code: 'share_not_found', message: 'share link not found', request_id: REQUEST_ID },
    })
  })
})

describe('content frames', () => {
  it('come from CONTENT_URL when set, signed, sandboxed, and only for their embedder', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, '# hi', { ext: 'md', mime: 'text/markdown' })
    const env = { CONTENT_URL: 'https://usercontent.canvas.test' }
    const viewer = await call(`/c/${canvas.canvas_id}`, { cookie: account.cookie, env })
    expect(viewer.headers.get('Content-Security-Policy')).toContain(
      'frame-src https://usercontent.canvas.test',
    )
    const html = await viewer.text()
    const src = /<iframe src="([^"]+)"/.exec(html)![1].replace(/&amp;/g, '&')
    expect(src).toMatch(
      new RegExp(
        `^https://usercontent\\.canvas\\.test/_frame/${canvas.canvas_id}/1\\?g=o\\.\\w+&exp=\\d+&app=`,
      ),
    )
    // Beside the owner's comments the frame runs one script, the comments bridge: its policy
    // allows that script by its hash and nothing else.
    expect(html).toMatch(
      /sandbox="allow-scripts allow-popups allow-popups-to-escape-sandbox allow-downloads"/,
    )
    const frame = await call(src, { env })
    expect(frame.status).toBe(200)
    const csp = frame.headers.get('Content-Security-Policy')!
    expect(csp).toMatch(/^sandbox allow-scripts allow-popups/)
    expect(csp).toMatch(/default-src 'none'; script-src 'sha256-[A-Za-z0-9+/]+=*';/)
    expect(csp).not.toContain('unsafe-eval')
    expect(csp).not.toContain('allow-same-origin')
    expect(csp).toContain('frame-ancestors http://canvas.test')
    expect(await frame.text()).toContain('<h1>hi</h1>')
    for (const bad of [
      src.replace(/sig=\w+/, 'sig=00'),
      src.replace('/1?', '/2?'),
      src.replace(/app=[^&]+/, 'app=https%3A%2F%2Fevil.example'),
      // The grant is signed too: an owner's frame cannot be turned into a public one.
      src.replace(/g=[^&]+/, 'g=p'),
    ]) {
      expect((await call(bad, { env })).status).toBe(403)
    }
  })

  it('a private canvas is not shown to another account or to nobody', async () => {
    const owner = await newAccount()
    const other = await newAccount()
    const canvas = await newCanvas(owner.key, 'private words')
    const stranger = await call(`/c/${canvas.canvas_id}`, { cookie: other.cookie })
    expect(stranger.status).toBe(404)
    expect(await stranger.text()).not.toContain('private words')
    const anonymous = await call(`/c/${canvas.canvas_id}`)
    expect(anonymous.status).toBe(302)
  })
})

describe('review fixes', () => {
  it('content frames are rate-limited per client like the other public routes', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'framed')
    const viewer = await (await call(`/c/${canvas.canvas_id}`, { cookie: account.cookie })).text()
    const src = /<iframe src="([^"]+)"/.exec(viewer)![1].replace(/&amp;/g, '&')
    const raw = src.replace('/1?', '/1/raw?')
    const limited = { FRAME_LIMITER: env.AUTH_LIMITER_SMALL }
    await withinOneWindow(async (ip) => {
      const statuses: number[] = []
      for (let i = 0; i < 5; i++) {
        statuses.push((await call(i % 2 ? raw : src, { ip, env: limited })).status)
      }
      expect(statuses).toEqual([200, 302, 200, 302, 200])
      const refused = await call(raw, { ip, env: limited })
      expect(refused.status).toBe(429)
      expect(refused.headers.get('Retry-After')).toBe('60')
      expect((await call(src, { ip, env: limited })).status).toBe(429)
    })
    // Another client is not held up by the first one's budget.
    expect((await call(src, { ip: freshAddress(), env: limited })).status).toBe(200)
  })

  it('web login and share-password forms are rate-limited like the API', async () => {
    const account = await newAccount()
    const limited = { AUTH_LIMITER: env.AUTH_LIMITER_SMALL }
    await withinOneWindow(async (ip) => {
      const statuses: number[] = []
      for (let i = 0; i < 6; i++) {
        const res = await call('/login', {
          ...formPost({ email: account.email, password: 'wrong one' }),
          ip,
          env: limited,
        })
        statuses.push(res.status)
      }
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429])
    })

    const canvas = await newCanvas(account.key)
    const link = await json(
      await call(`/v1/canvases/${canvas.canvas_id}/shares`, {
        method: 'POST',
        key: account.key,
        json: { password: 'open sesame' },
      }),
    )
    await withinOneWindow(async (ip) => {
      const guesses: number[] = []
      for (let i = 0; i < 6; i++) {
        const res = await call(`/s/${link.token}`, {
          ...formPost({ password: 'guess' }),
          ip,
          env: { SHARE_PASSWORD_LIMITER: env.AUTH_LIMITER_SMALL },
        })
        guesses.push(res.status)
      }
      expect(guesses).toEqual([403, 403, 403, 403, 403, 429])
    })
  })

  it('web signup validates like the API and creates nothing on bad input', async () => {
    for (const [email, password, message] of [
      ['  ', 'long enough pw', 'The email must be an email address.'],
      [
        'x'.repeat(300) + '@example.com',
        'long enough pw',
        'The email must be at most 254 characters.',
      ],
      ['ok@example.com', 'short', 'The password must be at least 8 characters.'],
      ['ok@example.com', 'p'.repeat(300), 'The password must be at most 256 characters.'],
    ]) {
      const res = await call('/signup', formPost({ email, password }))
      expect(res.status).toBe(400)
      expect(await res.text()).toContain(message)
    }
    expect(
      await env.DB.prepare("SELECT 1 FROM users WHERE email = 'ok@example.com'").first(),
    ).toBeNull()
  })

  it('web forms refuse what the API refuses, with the same rule, and change nothing', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'form rules', { permanent: true })
    const csrf = await csrfOf(account.cookie)
    const share = (fields: Record<string, string>) =>
      call(`/c/${canvas.canvas_id}/share`, {
        ...formPost({ _csrf: csrf, ...fields }),
        cookie: account.cookie,
      })
    // The API caps link passwords at 256 characters; the form once took 60,000.
    for (const [fields, message] of [
      [{ password: 'p'.repeat(60_000) }, 'The password must be at most 256 characters.'],
      [{ password: 'abc' }, 'The password must be at least 4 characters.'],
      [{ expires_in: '1y' }, 'The expiry must be a duration such as 30m, 24h or 7d'],
      [{ expires_in: '400d' }, 'The expiry must be at most 365d.'],
      [{ max_views: '0' }, 'The view limit must be at least 1.'],
      [{ max_views: 'ten' }, 'The view limit must be'],
      [{ version: '7' }, 'That version does not exist: this canvas has only version 1.'],
      [{ token: 'short' }, 'The link name'],
    ] as const) {
      const res = await share(fields)
      // As the API answers: a version the canvas does not have is 404, the rest 400.
      expect(res.status, message).toBe('version' in fields ? 404 : 400)
      expect(await res.text()).toContain(message)
    }
    const visibility = await call(`/c/${canvas.canvas_id}/visibility`, {
      ...formPost({ _csrf: csrf, visibility: 'everyone' }),
      cookie: account.cookie,
    })
    expect(visibility.status).toBe(400)
    expect(await visibility.text()).toContain('The visibility must be private or public.')
    for (const [fields, message] of [
      [{ name: 'k'.repeat(101) }, 'The name must be at most 100 characters.'],
      [{ name: '  ' }, 'The name must not be empty.'],
      [{ name: 'k', scope: 'admin' }, 'The scopes must be read or write.'],
    ] as const) {
      const res = await call('/settings/keys', {
        ...formPost({ _csrf: csrf, ...fields }),
        cookie: account.cookie,
      })
      expect(res.status, message).toBe(400)
      expect(await res.text()).toContain(message)
    }
    const login = await call(
      '/login',
      formPost({ email: account.email, password: 'p'.repeat(300) }),
    )
    expect(login.status).toBe(400)
    expect(await login.text()).toContain('The password must be at most 256 characters.')
    const count = (table: string, column: string, value: string) =>
      countRows(`SELECT COUNT(*) AS n FROM ${table} WHERE ${column} = ?`, value)
    expect(await count('share_links', 'canvas_id', canvas.canvas_id)).toBe(0)
    expect(await count('api_keys', 'workspace_id', account.workspaceId)).toBe(1)
    const after = await json(await call(`/v1/canvases/${canvas.canvas_id}`, { key: account.key }))
    expect(after.visibility).toBe('private')
  })

  it('a deeply nested file renders (as text, or its depth capped) instead of failing', async () => {
    const account = await newAccount()
    const deep = await newCanvas(account.key, '['.repeat(20000) + ']'.repeat(20000), {
      ext: 'json',
      mime: 'application/json',
    })
    const quotes = await newCanvas(account.key, '>'.repeat(20000) + ' x', {
      ext: 'md',
      mime: 'text/markdown',
    })
    const expected = [
      [deep, 'Nested too deeply to show as a tree; shown as text.'],
      // Eight quote levels are kept; the markers past them are shown as typed.
      [quotes, '<blockquote>\n'.repeat(8) + '<p>&gt;&gt;'],
    ] as const
    for (const [canvas, shown] of expected) {
      const viewer = await (await call(`/c/${canvas.canvas_id}`, { cookie: account.cookie })).text()
      const src = /<iframe src="([^"]+)"/.exec(viewer)![1].replace(/&amp;/g, '&')
      const frame = await call(src)
      expect(frame.status).toBe(200)
      expect(await frame.text()).toContain(shown)
    }
  })

  it('the pdf renderer on a file that is not a PDF stays sandboxed', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, '<script>alert(1)</script>', {
      ext: 'html',
      mime: 'text/html',
    })
    await call(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'PATCH',
      key: account.key,
      json: { renderer_id: 'pdf' },
    })
    const viewer = await (await call(`/c/${canvas.canvas_id}`, { cookie: account.cookie })).text()
    expect(viewer).toMatch(/<iframe src="[^"]+" title="[^"]*" sandbox="/)
    const src = /<iframe src="([^"]+)"/.exec(viewer)![1].replace(/&amp;/g, '&')
    const frame = await call(src)
    expect(frame.status).toBe(200)
    expect(frame.headers.get('Content-Security-Policy')).toMatch(/^sandbox /)
    expect(await frame.text()).toContain('class="card"')
  })
})
