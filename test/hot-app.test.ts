import { env, SELF } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../src/app'
import { hotApp, isHot } from '../src/hot'

// The Worker starts with the hot routes' app (src/hot.ts) and loads the whole app for any other
// path (src/index.ts). Both must answer a hot path alike: the same routes, in the same order.

const described = (routes: { method: string; path: string }[]) =>
  routes.filter((r) => isHot(r.path)).map((r) => `${r.method} ${r.path}`)

describe("the start's app", () => {
  const fallback = () => new Response('whole app')

  it('has every route of the whole app under its paths, in the same order, and none else', () => {
    const hot = hotApp(fallback)
    const whole = buildApp()
    expect(described(hot.routes)).toEqual(described(whole.routes))
    // Beside its own, the start's app has only what every app has (/health, the middleware).
    const own = hot.routes.filter((r) => !isHot(r.path)).map((r) => `${r.method} ${r.path}`)
    expect(own.every((route) => route.endsWith(' /*') || route === 'GET /health')).toBe(true)
  })

  it("routes with Hono's RegExpRouter: no route makes it fall back to a slower one", async () => {
    const hot = hotApp(fallback)
    await hot.request('/health', {}, env)
    expect(hot.router.name).toBe('SmartRouter + RegExpRouter')
  })

  it('tells hot paths by whole segments', () => {
    for (const path of ['/health', '/v1/canvases', '/v1/canvases/abc/versions', '/s/tok', '/c/abc'])
      expect(isHot(path), path).toBe(true)
    for (const path of ['/v1/canvasesx', '/v1/webhooks', '/settings', '/', '/sx', '/login'])
      expect(isHot(path), path).toBe(false)
  })

  it('hands a path it does not serve to the whole app: an unknown /v1 route is 401 without a key', async () => {
    const res = await SELF.fetch('http://localhost/v1/canvases/abc/nothing-here')
    expect(res.status).toBe(401)
    const body = await res.json<{ error: { code: string } }>()
    expect(body.error.code).toBe('unauthorized')
  })
})
