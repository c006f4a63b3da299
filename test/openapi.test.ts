import { describe, expect, it } from 'vitest'
import type * as z from 'zod/mini'
import { TOOLS } from '../src/api/mcp-tools'
import * as shapes from '../src/schema/responses'
import { call, json, newAccount, newCanvas, ORIGIN } from './support/api'

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

describe('the comment routes', () => {
  it('are described with their shapes and the errors they answer', async () => {
    const doc = await json(await call('/openapi.json'))
    const base = '/v1/canvases/{id}/comments'
    const comment = '#/components/schemas/Comment'
    const answer = (path: string, method: string, status: string) =>
      doc.paths[path]?.[method]?.responses?.[status]
    const schemaOf = (path: string, method: string, status: string) =>
      answer(path, method, status)?.content['application/json'].schema
    expect(schemaOf(base, 'get', '200')).toEqual({ $ref: '#/components/schemas/CommentList' })
    expect(schemaOf(base, 'post', '201')).toEqual({ $ref: comment })
    const replies = `${base}/{comment_id}/replies`
    expect(schemaOf(replies, 'post', '201')).toEqual({ $ref: '#/components/schemas/Reply' })
    for (const action of ['resolve', 'reopen']) {
      expect(schemaOf(`${base}/{comment_id}/${action}`, 'post', '200')).toEqual({ $ref: comment })
    }
    for (const [path, method] of [
      [replies, 'post'],
      [`${base}/{comment_id}/resolve`, 'post'],
      [`${base}/{comment_id}/reopen`, 'post'],
      [`${base}/{comment_id}`, 'delete'],
      [`${base}/{comment_id}/replies/{reply_id}`, 'delete'],
    ]) {
      expect(answer(path, method, '404')?.description, `${method} ${path}`).toContain(
        '`comment_not_found`',
      )
    }
    for (const path of [
      '/share/{token}/comments',
      '/share/{token}/comments/{comment_id}/replies',
    ]) {
      expect(answer(path, 'post', '403')?.description, path).toContain('`comments_disabled`')
    }
    expect(answer('/share/{token}/comments', 'get', '403')?.description).toContain(
      '`comments_disabled`',
    )
    const shapes = doc.components.schemas
    expect(Object.keys(shapes.Comment.properties).sort()).toEqual(
      [
        'anchor',
        'author',
        'body',
        'canvas_id',
        'comment_id',
        'created_at',
        'replies',
        'resolved_at',
        'status',
        'version',
      ].sort(),
    )
    expect(shapes.Share.properties.allow_comments).toEqual({ type: 'boolean' })
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

  it('for canvases, versions, shares, comments and the account', async () => {
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
    const comments = `/v1/canvases/${id}/comments`
    const comment = await json(
      await call(comments, {
        key,
        method: 'POST',
        json: { body: 'hi', anchor: { point: { x: 0, y: 1 } } },
      }),
    )
    conforms(shapes.comment, comment)
    const replied = await call(`${comments}/${comment.comment_id}/replies`, {
      key,
      method: 'POST',
      json: { body: 'yes' },
    })
    conforms(shapes.reply, await json(replied))
    const resolved = await call(`${comments}/${comment.comment_id}/resolve`, {
      key,
      method: 'POST',
    })
    conforms(shapes.comment, await json(resolved))
    conforms(shapes.commentList, await json(await call(`${comments}?status=all`, { key })))
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
    // `<id>` and `<canvas_id>` are the path's {id}; any other placeholder keeps its name.
    const param = (path: string) =>
      path.replace(/<(\w+)>/g, (_, name) => (/^(canvas_)?id$/.test(name) ? '{id}' : `{${name}}`))
    const named = [...text.matchAll(/\b(GET|POST|PUT|PATCH|DELETE)\s+(\/[\w/{}.<>-]*)/g)].map(
      ([, method, path]) => `${method} ${param(path)}`,
    )
    expect(named.length).toBeGreaterThan(25)
    for (const route of named) expect(routes, route).toContain(route)
    for (const url of text.matchAll(/http:\/\/canvas\.test(\/[\w/.<>-]*)/g)) {
      const path = param(url[1]).replace(/\/$/, '') || '/'
      const known = [...routes].some((r) => r.endsWith(` ${path}`)) || path === '/settings'
      expect(known, path).toBe(true)
    }
    const listed = [...text.matchAll(/^- `(\w+)`/gm)].map(([, name]) => name)
    expect(listed).toEqual(TOOLS.map((t) => t.name))
  })
})

describe('GET /skill.md', () => {
  it('is the repository’s agent skill, naming this deployment', async () => {
    const res = await call('/skill.md')
    expect(res.status).toBe(200)
    expect(res.headers.get('Content-Type')).toBe('text/markdown; charset=utf-8')
    const text = await res.text()
    const front = /^---\nname: (.+)\ndescription: (.+)\n---\n/.exec(text)
    expect(front?.[1]).toBe('canvas')
    expect(front![2].length).toBeLessThanOrEqual(1024)
    expect(text).toContain(`${ORIGIN}/mcp`)
    expect(text).toContain(`npm install -g ${ORIGIN}/cli/svc.tgz`)
    expect(text).not.toContain('canvas.example.com')
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
