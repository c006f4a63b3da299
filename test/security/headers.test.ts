import { describe, expect, it } from 'vitest'
import { browse, call, formPost, json } from '../support/api'
import { routeName, ROUTES, type Route } from '../support/routes'
import { buildWorld, ownerCredentials, requestFor, succeedingRequests } from '../support/world'

// The headers every answer carries: pages a strict CSP and no framing, content frames a sandbox,
// cookies HttpOnly and SameSite (Secure over https), and nothing authenticated or password-protected
// stored by a cache.

/** Writes that remove what later requests need go last. */
const ORDER = [
  'DELETE /c/:id/comments/:comment_id/replies/:reply_id',
  'DELETE /c/:id/comments/:comment_id',
  'DELETE /v1/canvases/:id/comments/:comment_id/replies/:reply_id',
  'DELETE /v1/canvases/:id/comments/:comment_id',
  'DELETE /v1/canvases/:id/shares/:token',
  // After the API's revoke: a link revoked already is a message, not an error.
  'POST /c/:id/shares/:token/revoke',
  'DELETE /v1/canvases/:id/shares',
  // After the API's: no link left to revoke is a message, not an error.
  'POST /c/:id/unshare',
  'DELETE /v1/canvases/:id',
  'DELETE /v1/webhooks/:webhook_id',
  // After the API's delete: a webhook deleted already is a message, not an error.
  'POST /settings/webhooks/:webhookId/delete',
  // Making a workspace moves the owner's session into it; the switch brings it back.
  'POST /settings/members/workspaces',
  'POST /settings/members/switch',
  'DELETE /v1/workspaces/:workspace_id/members/:user_id',
  // After the API's removal: a member removed already is a message, not an error.
  'POST /settings/members/:userId/remove',
  // Joining moves the owner's session into the other workspace: last.
  'POST /auth/join/:token',
  'POST /join/:token',
]
const byOrder = (a: Route, b: Route) => ORDER.indexOf(routeName(a)) - ORDER.indexOf(routeName(b))

describe('every route', () => {
  it('answers nosniff; authenticated answers are never stored by a cache', async () => {
    const world = await buildWorld()
    const requestOf = await succeedingRequests(world)
    for (const route of [...ROUTES].filter((r) => r.path !== '/auth/logout').sort(byOrder)) {
      const { path, init } = requestOf(route)
      // The owner's own forms carry the session's CSRF token.
      const body =
        route.auth === 'page' && route.method === 'POST' && typeof init.body === 'string'
          ? `${init.body}&_csrf=${world.csrf}`
          : init.body
      const res = await call(path, { ...init, body, ...ownerCredentials(route, world) })
      const name = routeName(route)
      expect(res.headers.get('X-Content-Type-Options'), name).toBe('nosniff')
      if (['key', 'session', 'page'].includes(route.auth)) {
        expect(res.status, name).toBeLessThan(400)
        expect(res.headers.get('Cache-Control'), name).toBe('no-store')
      }
    }
    // A request to every route of the table: a loaded machine took over the 60 s default.
  }, 180_000)
})

// The CLI's package, the app's icon, the download redirect, and the login and signup pages, which
// send a logged-in visitor home.
const NOT_PAGES = [
  '/cli/svc.tgz',
  '/favicon.svg',
  '/favicon.ico',
  '/signup',
  '/login',
  '/c/:id/download',
]

describe('pages', () => {
  const CSP = [
    "default-src 'self'",
    "script-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ]

  it('carry a strict CSP, refuse framing and keep the referrer on this site', async () => {
    const world = await buildWorld()
    const pages = [
      ...ROUTES.filter((r) => r.method === 'GET' && !r.json && r.auth !== 'signed').map(
        (r) => requestFor(r, world).path,
      ),
      '/no-such-page',
      `/c/${world.otherCanvasId}`,
    ]
    const notPages: string[] = []
    for (const path of pages) {
      const res = await call(path, { cookie: world.owner.cookie })
      if (!res.headers.get('Content-Type')?.startsWith('text/html')) {
        notPages.push(path)
        continue
      }
      const csp = res.headers.get('Content-Security-Policy') ?? ''
      for (const directive of CSP) expect(csp, path).toContain(directive)
      expect(csp, path).not.toContain('unsafe-inline')
      expect(res.headers.get('X-Frame-Options'), path).toBe('DENY')
      expect(res.headers.get('Referrer-Policy'), path).toBe('same-origin')
      expect(res.headers.get('X-Content-Type-Options'), path).toBe('nosniff')
    }
    // Nothing else answered something other than a page: every page was checked.
    expect(notPages.map((p) => p.replace(world.canvasId, ':id')).sort()).toEqual(NOT_PAGES.sort())
  })

  it('put content in a sandboxed frame that only the app may embed', async () => {
    const world = await buildWorld()
    const viewer = await (await call(`/c/${world.canvasId}`, { cookie: world.owner.cookie })).text()
    expect(viewer).toMatch(/<iframe[^>]* sandbox="[^"]*"/)
    expect(/<iframe[^>]* sandbox="([^"]*)"/.exec(viewer)![1]).not.toContain('allow-same-origin')
    const src = /<iframe[^>]* src="([^"]+)"/.exec(viewer)![1].replaceAll('&amp;', '&')
    const frame = await call(src)
    expect(frame.status).toBe(200)
    const csp = frame.headers.get('Content-Security-Policy')!
    expect(csp).toMatch(/^sandbox[ ;]/)
    expect(csp).not.toContain('allow-same-origin')
    expect(csp).toContain('frame-ancestors http://canvas.test')
    expect(frame.headers.get('X-Content-Type-Options')).toBe('nosniff')
    // The raw bytes, as the storage route serves them, are sandboxed too.
    const content = await call(`/v1/canvases/${world.canvasId}/content`, { key: world.owner.key })
    const raw = await call(content.headers.get('Location')!)
    expect(raw.headers.get('Content-Security-Policy')).toMatch(/^sandbox[ ;]/)
    expect(raw.headers.get('X-Content-Type-Options')).toBe('nosniff')
  })
})

describe('cookies', () => {
  const sessionCookie = (res: Response) =>
    /canvas_session=[^,]*(,[^;,]*)?[^,]*/
      .exec(res.headers.get('Set-Cookie') ?? '')![0]
      .split(';')
      .map((p) => p.trim().toLowerCase())

  it('are HttpOnly and SameSite=Lax, and Secure over https only', async () => {
    const world = await buildWorld()
    const credentials = { email: world.owner.email, password: world.owner.password }
    for (const origin of ['http://canvas.test', 'https://canvas.test']) {
      const login = await call(`${origin}/auth/login`, { method: 'POST', json: credentials })
      expect(login.status).toBe(200)
      const parts = sessionCookie(login)
      expect(parts).toContain('httponly')
      expect(parts).toContain('samesite=lax')
      expect(parts).toContain('path=/')
      expect(parts.includes('secure'), origin).toBe(origin.startsWith('https'))
      const form = await call(`${origin}/login`, formPost(credentials))
      expect(form.status).toBe(302)
      expect(sessionCookie(form).includes('secure'), origin).toBe(origin.startsWith('https'))
      expect(sessionCookie(form)).toContain('httponly')
    }
  })
})

describe('password-protected shares', () => {
  it('are never stored by a cache, with or without the password', async () => {
    const world = await buildWorld()
    const password = { 'X-Share-Password': world.sharePassword }
    const answers = [
      await call(`/share/${world.token}`),
      await call(`/share/${world.token}`, { headers: password }),
      await call(`/share/${world.token}/content`, { headers: password }),
      await call(`/s/${world.token}`),
      await call(`/s/${world.token}`, formPost({ password: world.sharePassword })),
      await browse(`/s/${world.token}`, formPost({ password: world.sharePassword })),
    ]
    expect(answers.map((r) => r.status)).toEqual([401, 200, 302, 401, 303, 200])
    for (const res of answers) expect(res.headers.get('Cache-Control')).toBe('no-store')
    expect((await json(answers[1])).share.has_password).toBe(true)
  })
})
