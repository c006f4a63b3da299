import { describe, expect, it } from 'vitest'
import type * as z from 'zod/mini'
import { TOOLS } from '../src/api/mcp-tools'
import * as shapes from '../src/schema/responses'
import { call, json, newAccount, newCanvas } from './support/api'

// The description is served, and it tells the truth: real answers of the API parse with the
// response schemas it is generated from.

describe('GET /openapi.json', () => {
  it('serves the description with this server’s origin, to anyone', async () => {
    const res = await call('/openapi.json')
    expect(res.status).toBe(200)
    expect(res.headers.get('Content-Type')).toMatch(/^application\/json/)
    const doc = await json(res)
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.servers).toEqual([{ url: 'http://canvas.test' }])
    expect(Object.keys(doc.paths)).toContain('/v1/canvases/{id}')
    expect(Object.keys(doc.components.schemas)).toContain('CanvasDetail')
  })
})

describe('GET /docs', () => {
  it('renders every operation for people, with nothing from another host', async () => {
    const res = await call('/docs')
    expect(res.status).toBe(200)
    const html = await res.text()
    const doc = await json(await call('/openapi.json'))
    for (const [path, ops] of Object.entries<Record<string, unknown>>(doc.paths)) {
      for (const method of Object.keys(ops)) {
        expect(html).toContain(`${method.toUpperCase()} ${path}`)
      }
    }
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//)
    expect(res.headers.get('Content-Security-Policy')).toContain("default-src 'self'")
  })
})

describe('answers match the response schemas', () => {
  const conforms = (schema: z.ZodMiniType, value: unknown) => {
    const result = schema.safeParse(value)
    expect(result.success ? [] : result.error.issues).toEqual([])
  }

  it('for canvases, versions, shares and the account', async () => {
    const { key } = await newAccount()
    const created = await newCanvas(key, '# hi', { ext: 'md' })
    const id = created.canvas_id
    conforms(shapes.canvas, created)
    conforms(shapes.canvasDetail, await json(await call(`/v1/canvases/${id}`, { key })))
    conforms(shapes.canvasList, await json(await call('/v1/canvases', { key })))
    conforms(shapes.versionList, await json(await call(`/v1/canvases/${id}/versions`, { key })))
    const share = await call(`/v1/canvases/${id}/shares`, {
      key,
      method: 'POST',
      json: { max_views: 3, password: 'open sesame' },
    })
    const link = await json(share)
    conforms(shapes.share, link)
    conforms(shapes.shareList, await json(await call(`/v1/canvases/${id}/shares`, { key })))
    conforms(
      shapes.publicShare,
      await json(
        await call(`/share/${link.token}`, { headers: { 'X-Share-Password': 'open sesame' } }),
      ),
    )
    conforms(shapes.me, await json(await call('/v1/me', { key })))
    conforms(shapes.usage, await json(await call('/v1/usage', { key })))
    conforms(shapes.rendererList, await json(await call('/v1/renderers', { key })))
    const permanent = await call(`/v1/canvases/${id}/permanent`, { key, method: 'POST' })
    conforms(shapes.canvas, await json(permanent))
    conforms(shapes.error, await json(await call('/v1/canvases/nope', { key })))
    conforms(shapes.health, await json(await call('/health')))
  })
})

describe('GET /llms.txt', () => {
  it('names only routes and tools that exist, and every tool', async () => {
    const res = await call('/llms.txt')
    expect(res.status).toBe(200)
    expect(res.headers.get('Content-Type')).toBe('text/markdown; charset=utf-8')
    const text = await res.text()
    const doc = await json(await call('/openapi.json'))
    const routes = new Set(
      Object.entries<Record<string, unknown>>(doc.paths).flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
      ),
    )
    const named = [...text.matchAll(/\b(GET|POST|PUT|PATCH|DELETE)\s+(\/[\w/{}.<>-]*)/g)].map(
      ([, method, path]) => `${method} ${path.replace(/<(\w+)>/g, '{id}')}`,
    )
    expect(named.length).toBeGreaterThan(25)
    for (const route of named) expect(routes, route).toContain(route)
    for (const url of text.matchAll(/http:\/\/canvas\.test(\/[\w/.<>-]*)/g)) {
      const path = url[1].replace(/<\w+>/g, '{id}').replace(/\/$/, '') || '/'
      const known = [...routes].some((r) => r.endsWith(` ${path}`)) || path === '/settings'
      expect(known, path).toBe(true)
    }
    const listed = [...text.matchAll(/^- `(\w+)`/gm)].map(([, name]) => name)
    expect(listed).toEqual(TOOLS.map((t) => t.name))
  })
})

describe('the origin the documents name', () => {
  const evil = { headers: { Host: 'evil.example' } }

  it('is the configured APP_URL whatever the Host header, cached publicly', async () => {
    const env = { APP_URL: 'https://canvas.example.com/' }
    const llms = await call('http://evil.example/llms.txt', { ...evil, env })
    expect(llms.headers.get('Cache-Control')).toBe('public, max-age=300')
    const text = await llms.text()
    expect(text).toContain('https://canvas.example.com/mcp')
    expect(text).not.toContain('evil.example')
    const doc = await call('http://evil.example/openapi.json', { ...evil, env })
    expect(doc.headers.get('Cache-Control')).toBe('public, max-age=300')
    expect((await json(doc)).servers).toEqual([{ url: 'https://canvas.example.com' }])
  })

  it('without APP_URL is the request’s own, for that host only: Vary: Host, no public cache', async () => {
    for (const path of ['/llms.txt', '/openapi.json']) {
      const res = await call(`http://evil.example${path}`, evil)
      expect(res.status).toBe(200)
      expect(res.headers.get('Vary')).toMatch(/\bHost\b/)
      expect(res.headers.get('Cache-Control')).toBe('private, max-age=300')
    }
  })

  it('names APP_URL in the links MCP answers', async () => {
    const { key } = await newAccount()
    const res = await call('http://evil.example/mcp', {
      method: 'POST',
      key,
      env: { APP_URL: 'https://canvas.example.com' },
      headers: {
        Accept: 'application/json, text/event-stream',
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'publish', arguments: { content: 'hi', filename: 'a.txt' } },
      }),
    })
    const canvas = (await json(res)).result.structuredContent
    expect(canvas.view_url).toBe(`https://canvas.example.com/c/${canvas.canvas_id}`)
  })
})
