import { env, SELF } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../src/app'
import { hotApp } from '../src/hot'

// The Worker starts with the hot routes' app (src/hot.ts) and sends it only the requests it has a
// route for; the whole app answers every other (src/index.ts). Both must answer a hot request
// alike: the whole app has the same routes, first, in the same order.

const routesOf = (routes: { method: string; path: string }[]) =>
  routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path}`)

describe("the start's app", () => {
  const fallback = () => new Response('whole app')

  it('has its routes in the whole app, each once, in the same order', () => {
    const hot = routesOf(hotApp(fallback).app.routes)
    const whole = routesOf(buildApp().routes)
    // Each once (no other route of the same method and path), in the same order.
    expect(whole.filter((route) => hot.includes(route))).toEqual(hot)
    expect(hot.length).toBeGreaterThan(50)
  })

  it("routes with Hono's RegExpRouter: no route makes it fall back to a slower one", async () => {
    const { app } = hotApp(fallback)
    await app.request('/health', {}, env)
    expect(app.router.name).toBe('SmartRouter + RegExpRouter')
  })

  it('serves the requests it has a route for, and no other', () => {
    const { serves } = hotApp(fallback)
    const hot = [
      ['GET', '/health'],
      ['HEAD', '/health'],
      ['GET', '/v1/canvases'],
      ['GET', '/v1/canvases/abc'],
      ['POST', '/v1/canvases/abc/shares'],
      ['GET', '/s/tok'],
      ['GET', '/c/abc'],
      ['POST', '/c/abc/visibility'],
      ['GET', '/favicon.ico'],
    ]
    for (const [method, path] of hot) expect(serves(method, path), `${method} ${path}`).toBe(true)
    const cold = [
      ['GET', '/v1/canvases/abc/nothing-here'],
      ['DELETE', '/health'],
      ['GET', '/v1/canvasesx'],
      ['GET', '/v1/webhooks'],
      ['GET', '/settings'],
      ['GET', '/'],
      ['GET', '/login'],
      ['POST', '/c/abc/nothing'],
    ]
    for (const [method, path] of cold) expect(serves(method, path), `${method} ${path}`).toBe(false)
  })

  it('leaves to the whole app a path it has no route for: an unknown /v1 route is 401 without a key', async () => {
    const res = await SELF.fetch('http://localhost/v1/canvases/abc/nothing-here', {
      method: 'POST',
      headers: { Origin: 'https://elsewhere.example' },
    })
    expect(res.status).toBe(401)
    const body = await res.json<{ error: { code: string } }>()
    expect(body.error.code).toBe('unauthorized')
  })
})
