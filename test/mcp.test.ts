import { env } from 'cloudflare:test'
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker-provider.js'
import { beforeAll, describe, expect, it } from 'vitest'
import { call, errorOf, json, newAccount, newKey, ORIGIN, type Account } from './support/api'
import { connect, fails, ok, use } from './support/mcp'

// The MCP server, driven by the SDK's own client over HTTP through the Worker's fetch handler:
// every tool, and every failure as a result with `isError` whose text starts with its code.

let owner: Account

beforeAll(async () => {
  owner = await newAccount()
})

describe('POST /mcp', () => {
  it('lists the tools, each with a JSON Schema input and a description', async () => {
    const client = await connect(owner.key)
    expect(client.getServerVersion()?.name).toBe('canvas')
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual([
      'publish',
      'list_canvases',
      'get_canvas',
      'read_canvas',
      'list_versions',
      'update_canvas',
      'edit_canvas',
      'delete_canvas',
      'make_permanent',
      'share_canvas',
      'list_shares',
      'revoke_shares',
      'list_comments',
      'wait_for_comments',
      'add_comment',
      'reply_comment',
      'resolve_comment',
      'usage',
      'list_workspaces',
      'search_canvases',
      'search',
      'fetch',
      'request_review',
      'get_review',
      'wait_for_review',
      'get_views',
    ])
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object')
      expect(tool.outputSchema?.type, tool.name).toBe('object')
      expect(tool.description!.length).toBeGreaterThan(20)
    }
    const publish = tools.find((t) => t.name === 'publish')!
    expect(publish.inputSchema.required).toBeUndefined()
    // An agent learns from the description alone what it may publish.
    for (const kind of ['HTML', 'Markdown', 'Mermaid', 'math', 'notebook', 'Vega', 'CSV', 'PDF']) {
      expect(publish.description).toContain(kind)
    }
    // A time is said by its format alone: its pattern would be repeated for every time listed.
    expect((publish.outputSchema!.properties as any).created_at).toEqual({
      type: 'string',
      format: 'date-time',
    })
    expect(Object.keys(publish.inputSchema.properties!)).toEqual(
      expect.arrayContaining(['content', 'content_base64', 'filename', 'files', 'main']),
    )
    await client.close()
  })

  it('names each tool for people, with truthful annotations and the service’s icon', async () => {
    const client = await connect(owner.key)
    const icon = { src: `${ORIGIN}/favicon.svg`, mimeType: 'image/svg+xml', sizes: ['any'] }
    expect(client.getServerVersion()).toMatchObject({ title: 'Canvas', icons: [icon] })
    const { tools } = await client.listTools()
    const byName = new Map(tools.map((t) => [t.name, t]))
    for (const tool of tools) {
      expect(tool.title, tool.name).toMatch(/^[A-Z][a-z]/)
      expect(tool.annotations?.title, tool.name).toBe(tool.title)
      expect(tool.annotations?.openWorldHint, tool.name).toBe(false)
      expect(tool.icons, tool.name).toEqual([icon])
    }
    const reads = tools.filter((t) => t.annotations?.readOnlyHint).map((t) => t.name)
    expect(reads.sort()).toEqual(
      [
        'get_canvas',
        'list_canvases',
        'list_comments',
        'list_shares',
        'list_versions',
        'list_workspaces',
        'read_canvas',
        'usage',
        'wait_for_comments',
        'search_canvases',
        'search',
        'fetch',
        'get_review',
        'wait_for_review',
        'get_views',
      ].sort(),
    )
    // What cannot be had back is said so; what changes nothing more when repeated too.
    const hints = (name: string) => {
      const a = byName.get(name)!.annotations!
      return [a.readOnlyHint, a.destructiveHint, a.idempotentHint]
    }
    expect(hints('delete_canvas')).toEqual([false, true, true])
    expect(hints('revoke_shares')).toEqual([false, true, true])
    expect(hints('publish')).toEqual([false, false, false])
    expect(hints('resolve_comment')).toEqual([false, false, true])
    expect(hints('make_permanent')).toEqual([false, false, true])
    // A read-only key is shown only the tools it may call.
    const reader = await connect(await newKey(owner.cookie, ['read']))
    const shown = (await reader.listTools()).tools.map((t) => t.name)
    expect(shown.sort()).toEqual(reads.sort())
    await client.close()
    await reader.close()
  })

  it('a tool marked read-only changes nothing: the workspace is the same after each', async () => {
    const account = await newAccount()
    const client = await connect(account.key)
    const canvas = await ok(client, 'publish', { content: '# Read me', filename: 'read.md' })
    await ok(client, 'share_canvas', { canvas_id: canvas.canvas_id })
    await ok(client, 'add_comment', { canvas_id: canvas.canvas_id, body: 'A note' })
    const review = await ok(client, 'request_review', { canvas_id: canvas.canvas_id })
    // Every row of the workspace's canvases, versions, links and comments, as stored.
    const state = async () => {
      const rows = await Promise.all(
        ['canvases', 'versions', 'share_links', 'comments', 'reviews'].map((table) =>
          env.DB.prepare(
            `SELECT * FROM ${table} WHERE ${table === 'canvases' ? 'workspace_id = ?' : 'canvas_id IN (SELECT canvas_id FROM canvases WHERE workspace_id = ?)'}`,
          )
            .bind(account.workspaceId)
            .all(),
        ),
      )
      return JSON.stringify(rows.map((r) => r.results))
    }
    const before = await state()
    const { tools } = await client.listTools()
    const args: Record<string, Record<string, unknown>> = {
      get_canvas: { canvas_id: canvas.canvas_id },
      read_canvas: { canvas_id: canvas.canvas_id },
      list_versions: { canvas_id: canvas.canvas_id },
      list_shares: { canvas_id: canvas.canvas_id },
      list_comments: { canvas_id: canvas.canvas_id },
      wait_for_comments: { canvas_id: canvas.canvas_id, since: '2000-01-01T00:00:00Z' },
      search_canvases: { query: 'read' },
      search: { query: 'read' },
      fetch: { id: canvas.canvas_id },
      get_review: { review_id: review.review_id },
      wait_for_review: { review_id: review.review_id, timeout_s: 1 },
      get_views: { canvas_id: canvas.canvas_id, days: 7 },
    }
    const reads = tools.filter((t) => t.annotations?.readOnlyHint)
    expect(reads.length).toBeGreaterThan(5)
    for (const tool of reads) {
      await ok(client, tool.name, args[tool.name] ?? {})
      expect(await state(), tool.name).toBe(before)
    }
    await client.close()
  })

  it('answers every tool with structuredContent that matches its outputSchema', async () => {
    const client = await connect(owner.key)
    const { tools } = await client.listTools()
    const validator = new CfWorkerJsonSchemaValidator()
    const schemas = new Map(tools.map((t) => [t.name, validator.getValidator(t.outputSchema!)]))
    const called = new Set<string>()
    // Checked here as well as by the client, so that a client that stopped checking would not
    // hide a mismatch.
    async function typed(name: string, args: Record<string, unknown> = {}) {
      const answer = await ok(client, name, args)
      const check = schemas.get(name)!(answer)
      expect(check.valid, `${name}: ${check.errorMessage}`).toBe(true)
      called.add(name)
      return answer
    }
    const png = btoa(String.fromCharCode(137, 80, 78, 71, 13, 10, 26, 10))
    const page = await typed('publish', { content: '# Typed', filename: 'typed.md' })
    const id = page.canvas_id
    const site = await typed('publish', {
      files: [
        { path: 'index.html', content: '<h1>Site</h1>' },
        { path: 'dot.png', content_base64: png },
      ],
    })
    await typed('list_canvases', { limit: 1 })
    await typed('get_canvas', { canvas_id: id })
    expect((await typed('get_canvas', { canvas_id: site.canvas_id })).items).toHaveLength(2)
    await typed('read_canvas', { canvas_id: id })
    const binary = await typed('read_canvas', { canvas_id: site.canvas_id, path: 'dot.png' })
    expect(binary.reason).toBe('binary content')
    await typed('list_versions', { canvas_id: id })
    await typed('update_canvas', { canvas_id: id, title: 'Typed' })
    await typed('edit_canvas', { canvas_id: id, edits: [{ old: 'Typed', new: 'Edited' }] })
    await typed('make_permanent', { canvas_id: id })
    const share = await typed('share_canvas', { canvas_id: id, password: 'pass word' })
    await typed('list_shares', { canvas_id: id })
    await typed('revoke_shares', { canvas_id: id, token: share.token })
    const comment = await typed('add_comment', {
      canvas_id: id,
      body: 'Typed?',
      anchor: { quote: { exact: 'Edited' } },
    })
    await typed('reply_comment', { canvas_id: id, comment_id: comment.comment_id, body: 'Yes' })
    await typed('resolve_comment', { canvas_id: id, comment_id: comment.comment_id })
    await typed('list_comments', { canvas_id: id, status: 'all' })
    await typed('wait_for_comments', { canvas_id: id, since: '2000-01-01T00:00:00Z' })
    await typed('usage')
    const review = await typed('request_review', { canvas_id: id, note: 'Typed?' })
    expect(review).toMatchObject({ canvas_id: id, state: 'pending', reviewers: [] })
    await typed('get_review', { review_id: review.review_id })
    expect(
      (await typed('wait_for_review', { review_id: review.review_id, timeout_s: 1 })).state,
    ).toBe('pending')
    expect((await typed('get_views', { canvas_id: id, days: 7 })).days).toBe(7)
    expect((await typed('search_canvases', { query: 'edited' })).results).toHaveLength(1)
    const found = await typed('search', { query: 'edited' })
    expect(found.results).toEqual([{ id, title: expect.any(String), url: `${ORIGIN}/c/${id}` }])
    expect((await typed('fetch', { id })).text).toContain('Edited')
    const { workspaces } = await typed('list_workspaces')
    expect(workspaces).toEqual([
      expect.objectContaining({ workspace_id: owner.workspaceId, role: 'owner', current: true }),
    ])
    await typed('delete_canvas', { canvas_id: site.canvas_id })
    expect([...called].sort()).toEqual(tools.map((t) => t.name).sort())

    // The schemas refuse what a tool does not answer: a field too many, or one missing.
    const canvasSchema = schemas.get('get_canvas')!
    const detail = await ok(client, 'get_canvas', { canvas_id: id })
    expect(canvasSchema({ ...detail, extra: 1 }).valid).toBe(false)
    const { view_url: _, ...withoutUrl } = detail
    expect(canvasSchema(withoutUrl).valid).toBe(false)
    await client.close()
  })

  it('publishes, versions, reads back, shares and revokes, as the API does', async () => {
    const client = await connect(owner.key)
    const canvas = await ok(client, 'publish', { content: '# Report\n\nv1', filename: 'report.md' })
    expect(canvas).toMatchObject({
      title: 'report.md',
      ext: 'md',
      version: 1,
      visibility: 'private',
    })
    expect(canvas.view_url).toBe(`${ORIGIN}/c/${canvas.canvas_id}`)
    const id = canvas.canvas_id
    // The same canvas through the REST API.
    const viaApi = await json(await call(`/v1/canvases/${id}`, { key: owner.key }))
    expect(viaApi).toMatchObject({ canvas_id: id, renderer_id: 'markdown', version: 1 })

    const v2 = await ok(client, 'publish', {
      content: '# Report\n\nv2',
      filename: 'report.md',
      canvas_id: id,
    })
    expect(v2).toMatchObject({ canvas_id: id, version: 2 })
    expect(await ok(client, 'read_canvas', { canvas_id: id })).toMatchObject({
      version: 2,
      text: '# Report\n\nv2',
    })
    expect(await ok(client, 'read_canvas', { canvas_id: id, version: 1 })).toMatchObject({
      text: '# Report\n\nv1',
    })
    const versions = await ok(client, 'list_versions', { canvas_id: id })
    expect(versions.versions.map((v: any) => v.version)).toEqual([2, 1])
    expect(await ok(client, 'get_canvas', { canvas_id: id })).toMatchObject({
      canvas_id: id,
      file: { size: 12 },
      view_url: canvas.view_url,
    })

    const share = await ok(client, 'share_canvas', {
      canvas_id: id,
      expires_in: '1h',
      max_views: 5,
    })
    expect(share).toMatchObject({ canvas_id: id, max_views: 5, has_password: false })
    // An hour is within the canvas's day: no note. Forever on a temporary canvas: a note.
    expect(share.note).toBeUndefined()
    const forever = await ok(client, 'share_canvas', { canvas_id: id })
    expect(forever.note).toMatch(
      /^Tell the person: the canvas expires in 2[34] h \(.+ UTC\) and the link with it: make the canvas permanent to keep the link\.$/,
    )
    await ok(client, 'revoke_shares', { canvas_id: id, token: forever.token })
    expect(share.url).toBe(`${ORIGIN}/s/${share.token}`)
    expect((await call(`/share/${share.token}`)).status).toBe(200)
    expect((await ok(client, 'list_shares', { canvas_id: id })).shares).toHaveLength(1)
    expect(await ok(client, 'revoke_shares', { canvas_id: id, token: share.token })).toEqual({
      success: true,
      revoked: 1,
    })
    expect((await call(`/share/${share.token}`)).status).toBe(404)

    expect(
      await ok(client, 'update_canvas', { canvas_id: id, title: 'Q3', visibility: 'public' }),
    ).toMatchObject({ title: 'Q3', visibility: 'public' })
    expect((await ok(client, 'make_permanent', { canvas_id: id })).expires_at).toBeNull()
    const list = await ok(client, 'list_canvases', { limit: 5 })
    expect(list.canvases.map((c: any) => c.canvas_id)).toContain(id)
    // Page by page with the cursor, as GET /v1/canvases: every canvas once.
    const second = await ok(client, 'publish', { content: 'another', filename: 'b.txt' })
    const first = await ok(client, 'list_canvases', { limit: 1 })
    expect(first.canvases.map((c: any) => c.canvas_id)).toEqual([second.canvas_id])
    const next = await ok(client, 'list_canvases', { limit: 1, cursor: first.next_cursor })
    expect(next.canvases.map((c: any) => c.canvas_id)).toEqual([id])
    await fails(
      client,
      'list_canvases',
      { cursor: first.next_cursor, offset: 1 },
      'invalid_request',
    )
    await fails(client, 'list_canvases', { cursor: 'not-one-we-gave' }, 'invalid_request')
    const usage = await ok(client, 'usage')
    expect(usage.canvases.permanent).toBeGreaterThanOrEqual(1)
    expect(usage.renderers.map((r: any) => r.renderer_id)).toContain('markdown')
    expect(await ok(client, 'delete_canvas', { canvas_id: id })).toEqual({ success: true })
    await fails(client, 'get_canvas', { canvas_id: id }, 'canvas_not_found')
    await client.close()
  })

  it('a new version of another type takes its own ext and renderer', async () => {
    const client = await connect(owner.key)
    const page = await ok(client, 'publish', { content: '<h1>Hi</h1>', filename: 'page.html' })
    expect(page).toMatchObject({ ext: 'html', renderer_id: 'html' })
    const notes = await ok(client, 'publish', {
      content: '# Notes',
      filename: 'notes.md',
      canvas_id: page.canvas_id,
    })
    expect(notes).toMatchObject({ version: 2, ext: 'md', renderer_id: 'markdown' })
  })

  it('an agent’s diagram, chart and notebook get their renderers, named for the app view', async () => {
    const client = await connect(owner.key)
    const spec = '{"$schema": "https://vega.github.io/schema/vega-lite/v5.json", "mark": "bar"}'
    for (const [filename, content, renderer, name] of [
      ['flow.mmd', 'flowchart LR\n  a --> b', 'mermaid', 'Mermaid diagram'],
      ['chart.vl.json', spec, 'vega', 'Vega or Vega-Lite chart'],
      [
        'analysis.ipynb',
        '{"cells": [], "metadata": {}, "nbformat": 4}',
        'notebook',
        'Jupyter notebook',
      ],
    ]) {
      const canvas = await ok(client, 'publish', { content, filename })
      expect(canvas.renderer_id, filename).toBe(renderer)
      const got = await ok(client, 'get_canvas', { canvas_id: canvas.canvas_id })
      expect(got.renderer, filename).toEqual({ renderer_id: renderer, name })
    }
    const usage = await ok(client, 'usage')
    expect(usage.renderers.map((r: any) => r.renderer_id)).toEqual(
      expect.arrayContaining(['mermaid', 'notebook', 'vega']),
    )
  })

  it('publishes binary content as base64 and reads it back as a download URL', async () => {
    const client = await connect(owner.key)
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0])
    const content_base64 = btoa(String.fromCharCode(...png))
    const canvas = await ok(client, 'publish', {
      content_base64,
      filename: 'dot.png',
      permanent: true,
    })
    expect(canvas).toMatchObject({ ext: 'png', size: 12, expires_at: null })
    const read = await ok(client, 'read_canvas', { canvas_id: canvas.canvas_id })
    expect(read).toMatchObject({ text: null, reason: 'binary content', size: 12 })
    const download = await call(read.download_url)
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(png)
    await client.close()
  })

  it('decodes large base64 content exactly, and refuses content past the limit', async () => {
    const client = await connect(owner.key)
    const bytes = new Uint8Array(300_000).map((_, i) => (i * 7919) % 256)
    let binary = ''
    for (const b of bytes) binary += String.fromCharCode(b)
    const canvas = await ok(client, 'publish', { content_base64: btoa(binary), filename: 'a.bin' })
    const read = await ok(client, 'read_canvas', { canvas_id: canvas.canvas_id })
    expect(new Uint8Array(await (await call(read.download_url)).arrayBuffer())).toEqual(bytes)
    const small = await connect(owner.key, { MAX_DIRECT_UPLOAD_BYTES: '1024' })
    const big = btoa('x'.repeat(1025))
    await fails(small, 'publish', { content_base64: big, filename: 'a.txt' }, 'payload_too_large')
    await fails(
      small,
      'publish',
      { content: 'x'.repeat(1025), filename: 'a.txt' },
      'payload_too_large',
    )
    expect(
      (await ok(small, 'publish', { content: 'x'.repeat(1024), filename: 'a.txt' })).size,
    ).toBe(1024)
  })

  it('answers every failure as an isError result with its code', async () => {
    const client = await connect(owner.key)
    await fails(client, 'get_canvas', { canvas_id: 'nope' }, 'canvas_not_found')
    await fails(client, 'get_canvas', {}, 'invalid_request')
    await fails(client, 'get_canvas', { canvas_id: 5 }, 'invalid_request')
    await fails(client, 'get_canvas', { canvas_id: '../x' }, 'invalid_request')
    await fails(client, 'publish', { filename: 'a.txt' }, 'invalid_request')
    await fails(
      client,
      'publish',
      { filename: 'a.txt', content: 'x', content_base64: 'eA==' },
      'invalid_request',
    )
    await fails(client, 'publish', { filename: 'a.txt', content_base64: '***' }, 'invalid_request')
    await fails(client, 'publish', { filename: 'a\u0000.txt', content: 'x' }, 'invalid_request')
    await fails(client, 'publish', { filename: 'a.txt', content: 'x', extra: 1 }, 'invalid_request')
    await fails(
      client,
      'publish',
      { filename: 'a.txt', content: 'x', canvas_id: 'missing' },
      'canvas_not_found',
    )
    await fails(client, 'update_canvas', { canvas_id: 'x' }, 'invalid_request')
    await fails(client, 'read_canvas', { canvas_id: 'x', version: 0 }, 'invalid_request')
    await fails(client, 'share_canvas', { canvas_id: 'x', expires_in: 'soon' }, 'invalid_request')
    await fails(client, 'list_canvases', { limit: 1000 }, 'invalid_request')
    await fails(client, 'list_canvases', { cursor: '../../etc/passwd' }, 'invalid_request')
    const other = await newAccount()
    const theirs = await ok(await connect(other.key), 'publish', {
      content: 'x',
      filename: 'x.txt',
    })
    await fails(client, 'get_canvas', { canvas_id: theirs.canvas_id }, 'canvas_not_found')
    await fails(client, 'delete_canvas', { canvas_id: theirs.canvas_id }, 'canvas_not_found')
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(
      /no tool named/,
    )
    await client.close()
  })

  it('publishes several files as a site, versions it, and reads any file by path', async () => {
    const client = await connect(owner.key)
    const png = btoa(String.fromCharCode(137, 80, 78, 71, 13, 10, 26, 10))
    const site = await ok(client, 'publish', {
      files: [
        { path: 'index.html', content: '<link rel="stylesheet" href="css/a.css"><h1>Hi</h1>' },
        { path: 'css/a.css', content: 'h1 { color: red }' },
        { path: 'img/dot.png', content_base64: png },
      ],
    })
    expect(site).toMatchObject({
      title: 'index.html',
      ext: 'html',
      renderer_id: 'html',
      version: 1,
    })
    const detail = await ok(client, 'get_canvas', { canvas_id: site.canvas_id })
    expect(detail.main).toBe('index.html')
    expect(detail.items.map((i: any) => i.path)).toEqual(['css/a.css', 'img/dot.png', 'index.html'])
    const css = await ok(client, 'read_canvas', { canvas_id: site.canvas_id, path: 'css/a.css' })
    expect(css).toMatchObject({ text: 'h1 { color: red }', path: 'css/a.css', version: 1 })
    const main = await ok(client, 'read_canvas', { canvas_id: site.canvas_id })
    expect(main.text).toContain('<h1>Hi</h1>')
    const image = await ok(client, 'read_canvas', {
      canvas_id: site.canvas_id,
      path: 'img/dot.png',
    })
    expect(image).toMatchObject({ text: null, reason: 'binary content', size: 8 })
    const next = await ok(client, 'publish', {
      canvas_id: site.canvas_id,
      files: [
        { path: 'index.html', content: '<h1>Hi again</h1>' },
        { path: 'notes.md', content: '# Notes' },
      ],
      main: 'notes.md',
    })
    expect(next).toMatchObject({ version: 2, ext: 'md', renderer_id: 'markdown' })
    const old = await ok(client, 'read_canvas', {
      canvas_id: site.canvas_id,
      version: 1,
      path: 'css/a.css',
    })
    expect(old.text).toBe('h1 { color: red }')
    const gone = await fails(
      client,
      'read_canvas',
      { canvas_id: site.canvas_id, path: 'css/a.css' },
      'not_found',
    )
    expect(gone).toBe("not_found: path: version 2 has no file 'css/a.css'")
    await client.close()
  })

  it('refuses a bad list of files before storing anything', async () => {
    const client = await connect(owner.key)
    const count = () =>
      env.DB.prepare('SELECT count(*) AS n FROM files WHERE workspace_id = ?')
        .bind(owner.workspaceId)
        .first<{ n: number }>()
    const before = await count()
    const cases: [Record<string, unknown>, string][] = [
      [{ files: [{ path: '../x.html', content: 'x' }] }, 'invalid_request'],
      [
        {
          files: [
            { path: 'a.html', content: 'x' },
            { path: 'a.html', content: 'y' },
          ],
        },
        'invalid_request',
      ],
      [{ files: [{ path: 'a.html', content: 'x' }], main: 'b.html' }, 'invalid_request'],
      [{ files: [{ path: 'a.html', content: 'x' }], filename: 'a.html' }, 'invalid_request'],
      [{ files: [{ path: 'a.html', content: 'x', content_base64: 'eA==' }] }, 'invalid_request'],
      [{ files: [{ path: 'a.bin', content_base64: '!!' }] }, 'invalid_request'],
      [{ content: 'x', filename: 'a.txt', main: 'a.txt' }, 'invalid_request'],
      [{ files: [] }, 'invalid_request'],
    ]
    for (const [args, code] of cases) await fails(client, 'publish', args, code)
    const small = await connect(owner.key, { MAX_DIRECT_UPLOAD_BYTES: '10' })
    await fails(
      small,
      'publish',
      {
        files: [
          { path: 'a.txt', content: '123456' },
          { path: 'b.txt', content: '654321' },
        ],
      },
      'payload_too_large',
    )
    expect(await count()).toEqual(before)
    await client.close()
    await small.close()
  })

  it('a read key lists and reads, and may not change anything', async () => {
    const client = await connect(owner.key)
    const canvas = await ok(client, 'publish', { content: 'hello', filename: 'hello.txt' })
    const reader = await connect(await newKey(owner.cookie, ['read']))
    expect((await ok(reader, 'read_canvas', { canvas_id: canvas.canvas_id })).text).toBe('hello')
    for (const [name, args] of [
      ['publish', { content: 'x', filename: 'x.txt' }],
      ['delete_canvas', { canvas_id: canvas.canvas_id }],
      ['share_canvas', { canvas_id: canvas.canvas_id }],
      ['revoke_shares', { canvas_id: canvas.canvas_id }],
      ['update_canvas', { canvas_id: canvas.canvas_id, title: 'x' }],
      ['make_permanent', { canvas_id: canvas.canvas_id }],
      ['edit_canvas', { canvas_id: canvas.canvas_id, edits: [{ old: 'hello', new: 'bye' }] }],
      ['add_comment', { canvas_id: canvas.canvas_id, body: 'x' }],
    ] as const) {
      expect(await fails(reader, name, args, 'forbidden')).toBe(
        "forbidden: this API key lacks the 'write' scope",
      )
    }
    expect((await ok(client, 'get_canvas', { canvas_id: canvas.canvas_id })).title).toBe(
      'hello.txt',
    )
  })

  it('idempotency_key makes a changing tool safe to retry', async () => {
    const client = await connect(owner.key)
    const args = { content: 'once', filename: 'once.txt', idempotency_key: crypto.randomUUID() }
    const first = await use(client, 'publish', args)
    const again = await use(client, 'publish', args)
    expect(again.structuredContent).toEqual(first.structuredContent)
    expect((again as any)._meta).toEqual({ idempotent_replayed: true })
    expect((first as any)._meta).toBeUndefined()
    const mine = await json(await call('/v1/canvases?limit=100', { key: owner.key }))
    const titled = mine.canvases.filter((c: any) => c.title === 'once.txt')
    expect(titled).toHaveLength(1)
    const text = await fails(
      client,
      'publish',
      { ...args, content: 'other' },
      'idempotency_key_reused',
    )
    expect(text).toContain('different request')
    await fails(client, 'publish', { ...args, idempotency_key: '' }, 'invalid_request')
    await fails(client, 'publish', { ...args, idempotency_key: 'é' }, 'invalid_request')
    await fails(client, 'get_canvas', { canvas_id: 'x', idempotency_key: 'k' }, 'invalid_request')

    // Concurrent retries: one new version, every answer that version or "in progress".
    const id = first.structuredContent.canvas_id
    const update = { canvas_id: id, content: 'v2', filename: 'once.txt', idempotency_key: 'v2' }
    const results = await Promise.all(
      Array.from({ length: 8 }, () => use(client, 'publish', update)),
    )
    for (const r of results) {
      if (r.isError) expect(r.content[0].text).toMatch(/^idempotency_in_progress: /)
      else expect(r.structuredContent.version).toBe(2)
    }
    expect((await ok(client, 'list_versions', { canvas_id: id })).versions).toHaveLength(2)

    // A failure the same call would meet again is kept too.
    const gone = { canvas_id: 'missing', idempotency_key: 'del' }
    await fails(client, 'delete_canvas', gone, 'canvas_not_found')
    await fails(client, 'delete_canvas', gone, 'canvas_not_found')
    await client.close()
  })

  it('needs a valid key, as /v1 does, answered with the error body', async () => {
    await expect(connect()).rejects.toMatchObject({
      code: 401,
      message: expect.stringContaining('"code":"unauthorized"'),
    })
    await expect(connect('svc_' + 'x'.repeat(40))).rejects.toThrow(/invalid or revoked API key/)
    const res = await call('/mcp', {
      method: 'POST',
      json: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    })
    expect(res.status).toBe(401)
    expect(await json(res)).toEqual(
      errorOf('unauthorized', 'missing API key: send Authorization: Bearer <key>'),
    )
  })

  it('refuses malformed and oversized bodies before the protocol sees them', async () => {
    const headers = {
      Accept: 'application/json, text/event-stream',
      'Content-Type': 'application/json',
    }
    const bad = await call('/mcp', { method: 'POST', key: owner.key, headers, body: '{"jsonrpc":' })
    expect(bad.status).toBe(400)
    expect(await json(bad)).toEqual(errorOf('invalid_request', 'malformed JSON in request body'))
    const huge = await call('/mcp', {
      method: 'POST',
      key: owner.key,
      headers,
      body: JSON.stringify({ pad: 'x'.repeat(30 * 1024 * 1024) }),
    })
    expect(huge.status).toBe(413)
    const batch = await call('/mcp', {
      method: 'POST',
      key: owner.key,
      headers,
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      ]),
    })
    expect(batch.status).toBe(400)
    expect(await json(batch)).toEqual(
      errorOf('invalid_request', 'send one JSON-RPC message per request, not a batch'),
    )
    for (const method of ['GET', 'DELETE']) {
      const res = await call('/mcp', { method, key: owner.key })
      expect(res.status).toBe(405)
      expect(res.headers.get('Allow')).toBe('POST')
    }
  })

  it('answers malformed tool arguments with -32602 and one readable line', async () => {
    const headers = {
      Accept: 'application/json, text/event-stream',
      'Content-Type': 'application/json',
    }
    const cases: [unknown, string][] = [
      [{ name: 'usage', arguments: null }, 'params.arguments: must be an object'],
      [{ name: 'usage', arguments: [] }, 'params.arguments: must be an object'],
      [{ name: 'usage', arguments: 'x' }, 'params.arguments: must be an object'],
      [{ name: 7, arguments: {} }, 'params.name: must be a tool name (a string)'],
      [{ arguments: {} }, 'params.name: must be a tool name (a string)'],
      [null, 'params: must be an object with name and arguments'],
      [[], 'params: must be an object with name and arguments'],
    ]
    for (const [params, message] of cases) {
      const res = await call('/mcp', {
        method: 'POST',
        key: owner.key,
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params }),
      })
      expect(res.status).toBe(200)
      expect(await json(res)).toEqual({
        jsonrpc: '2.0',
        id: 9,
        error: { code: -32602, message },
      })
    }
  })
})
