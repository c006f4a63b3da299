import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { beforeAll, describe, expect, it } from 'vitest'
import { newDevAccount, sharedDevServer, SETUP_MS } from './support/dev-server'
import { callApi, type ApiInit } from './support/api.ts'

// The whole upload flow over real HTTP against `wrangler dev` (via `npm run dev`'s script).
let server: Awaited<ReturnType<typeof sharedDevServer>>
let key: string

beforeAll(async () => {
  server = await sharedDevServer()
  key = (await newDevAccount(server.url, 'e2e@example.com')).key
}, SETUP_MS)

const api = (path: string, init?: ApiInit) => callApi(server.url, key, path, init)

/** presign → PUT (unless the content exists) → finalize; returns the file id and whether PUT ran. */
async function push(content: Buffer, ext = 'html') {
  const meta = {
    sha256: createHash('sha256').update(content).digest('hex'),
    ext,
    size: content.length,
    mime: 'text/html',
  }
  const presign = (await (
    await api('/v1/upload/presign', { method: 'POST', json: meta })
  ).json()) as any
  if (!presign.exists) {
    expect(new URL(presign.upload_url).origin).toBe(server.url)
    const put = await fetch(presign.upload_url, {
      method: 'PUT',
      body: new Uint8Array(content),
      headers: { 'Content-Type': presign.content_type },
    })
    expect(put.status).toBe(200)
  }
  const fin = await api('/v1/upload/finalize', {
    method: 'POST',
    json: { ...meta, file_id: presign.file_id },
  })
  expect(fin.status).toBe(200)
  const body = (await fin.json()) as any
  expect(body.file.file_id).toBe(presign.file_id)
  return {
    fileId: presign.file_id as string,
    uploaded: !presign.exists,
    reused: body.reused as boolean,
  }
}

/** Follows the 302 without the API key, as a client must, and returns the bytes. */
async function download(path: string) {
  const res = await api(path)
  expect(res.status).toBe(302)
  const location = res.headers.get('location')!
  const content = await fetch(location)
  expect(content.status).toBe(200)
  return { bytes: Buffer.from(await content.arrayBuffer()), headers: content.headers }
}

describe('end to end over HTTP', () => {
  it('presign → PUT → finalize → create → download returns the same bytes', async () => {
    const content = Buffer.from('<!doctype html><h1>Quarterly report</h1>')
    const { fileId, uploaded } = await push(content)
    expect(uploaded).toBe(true)
    const res = await api('/v1/canvases', {
      method: 'POST',
      json: { file_id: fileId, title: 'Report', ext: 'html' },
    })
    expect(res.status).toBe(201)
    const canvas = (await res.json()) as any
    const { bytes, headers } = await download(`/v1/canvases/${canvas.canvas_id}/content`)
    expect(bytes.equals(content)).toBe(true)
    expect(headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(headers.get('content-security-policy')).toMatch(/^sandbox/)
    const attachment = await download(`/v1/canvases/${canvas.canvas_id}/content?dl=1`)
    expect(attachment.headers.get('content-disposition')).toMatch(
      /^attachment; filename="Report.html"/,
    )
  })

  it('versions and rollback (SPEC 9.4): rolling back to 2 makes version 4 with the bytes of 2', async () => {
    const v1 = Buffer.from('<p>one</p>')
    const v2 = Buffer.from('<p>two</p>')
    const v3 = Buffer.from('<p>three</p>')
    const created = await api('/v1/canvases', {
      method: 'POST',
      json: { file_id: (await push(v1)).fileId, title: 'Versions', ext: 'html' },
    })
    const id = ((await created.json()) as any).canvas_id
    for (const content of [v2, v3]) {
      const res = await api(`/v1/canvases/${id}`, {
        method: 'PATCH',
        json: { file_id: (await push(content)).fileId },
      })
      expect(res.status).toBe(200)
    }
    // Rollback: download version 2 and push it back to the same canvas.
    const old = await download(`/v1/canvases/${id}/versions/2`)
    const again = await push(old.bytes)
    expect(again).toMatchObject({ uploaded: false, reused: true })
    const rolled = (await (
      await api(`/v1/canvases/${id}`, { method: 'PATCH', json: { file_id: again.fileId } })
    ).json()) as any
    expect(rolled).toMatchObject({ canvas_id: id, version: 4 })

    const versions = (await (await api(`/v1/canvases/${id}/versions`)).json()) as any
    expect(versions.versions.map((v: any) => v.version)).toEqual([4, 3, 2, 1])
    const expected = [v1, v2, v3, v2]
    for (let n = 1; n <= 4; n++) {
      expect(
        (await download(`/v1/canvases/${id}/versions/${n}`)).bytes.equals(expected[n - 1]),
      ).toBe(true)
    }
    expect((await download(`/v1/canvases/${id}/content`)).bytes.equals(v2)).toBe(true)
  })

  it('a multipart create works through the dev server too', async () => {
    const form = new FormData()
    form.append('file', new Blob(['# Notes\n']), 'notes.md')
    const res = await api('/v1/canvases', { method: 'POST', body: form })
    expect(res.status).toBe(201)
    const canvas = (await res.json()) as any
    expect(canvas).toMatchObject({ title: 'notes.md', ext: 'md', renderer_id: 'markdown' })
    expect((await download(`/v1/canvases/${canvas.canvas_id}/content`)).bytes.toString()).toBe(
      '# Notes\n',
    )
  })

  it('a password-protected share link downloads without an API key', async () => {
    const content = Buffer.from('<p>shared over http</p>')
    const created = await api('/v1/canvases', {
      method: 'POST',
      json: { file_id: (await push(content)).fileId, title: 'Shared', ext: 'html' },
    })
    const id = ((await created.json()) as any).canvas_id
    const link = (await (
      await api(`/v1/canvases/${id}/shares`, {
        method: 'POST',
        json: { password: 'letmein', max_views: 2 },
      })
    ).json()) as any
    const open = (password?: string) =>
      fetch(`${server.url}/share/${link.token}/content`, {
        redirect: 'manual',
        headers: password ? { 'X-Share-Password': password } : {},
      })
    expect((await open()).status).toBe(401)
    const res = await open('letmein')
    expect(res.status).toBe(302)
    const bytes = Buffer.from(await (await fetch(res.headers.get('location')!)).arrayBuffer())
    expect(bytes.equals(content)).toBe(true)
    expect((await open('letmein')).status).toBe(302)
    expect((await open('letmein')).status).toBe(410)
  })

  // The review's fifth finding: a revoked link's socket heard `gone`; whether the server then also
  // closed it was not checked. Here through wrangler dev's proxy, with a client of its own.
  it('a revoked link’s live socket hears why, and the server closes it', async () => {
    const content = Buffer.from('<p>live over http</p>')
    const created = await api('/v1/canvases', {
      method: 'POST',
      json: { file_id: (await push(content)).fileId, title: 'Live', ext: 'html' },
    })
    const id = ((await created.json()) as any).canvas_id
    const link = (await (
      await api(`/v1/canvases/${id}/shares`, { method: 'POST', json: {} })
    ).json()) as any
    const page = await (await fetch(`${server.url}/s/${link.token}`)).text()
    const live = /data-live="([^"]+)"/.exec(page)![1].replaceAll('&amp;', '&')
    const socket = new WebSocket(new URL(live, server.url).href.replace(/^http/, 'ws'))
    const messages: unknown[] = []
    socket.addEventListener('message', (e) => messages.push(JSON.parse(String(e.data))))
    await new Promise((resolve, reject) => {
      socket.addEventListener('open', resolve)
      socket.addEventListener('error', reject)
    })
    const closed = new Promise<CloseEvent>((resolve) => socket.addEventListener('close', resolve))
    const revoked = await api(`/v1/canvases/${id}/shares/${link.token}`, { method: 'DELETE' })
    expect(revoked.status).toBe(200)
    // The client closes nothing: the close comes from the server, whenever it comes.
    const close = await closed
    expect(close.code).toBe(4003)
    expect(messages.at(-1)).toEqual({ type: 'gone', reason: 'revoked' })
    expect(socket.readyState).toBe(WebSocket.CLOSED)
  })

  it('an agent publishes, reads back and shares over MCP, with the SDK’s own client', async () => {
    const client = new Client({ name: 'e2e', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      }),
    )
    // Listed, the tools' outputSchemas make the client (its default validator, as agents run it
    // in Node) check every answer below.
    const { tools } = await client.listTools()
    expect(tools.every((t) => t.outputSchema?.type === 'object')).toBe(true)
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as any
      expect(result.isError, result.content[0].text).toBeFalsy()
      return result.structuredContent
    }
    const canvas = await call('publish', { content: '<h1>agent</h1>', filename: 'agent.html' })
    expect(canvas.view_url).toBe(`${server.url}/c/${canvas.canvas_id}`)
    expect((await call('read_canvas', { canvas_id: canvas.canvas_id })).text).toBe('<h1>agent</h1>')
    const edits = [{ old: 'agent', new: 'edited' }]
    expect(await call('edit_canvas', { canvas_id: canvas.canvas_id, edits })).toMatchObject({
      version: 2,
    })
    expect((await call('read_canvas', { canvas_id: canvas.canvas_id })).text).toBe(
      '<h1>edited</h1>',
    )
    const view = tools.find((t) => t.name === 'publish')!._meta!.ui as { resourceUri: string }
    const { contents } = await client.readResource({ uri: view.resourceUri })
    expect(contents[0]).toMatchObject({ mimeType: 'text/html;profile=mcp-app' })
    await call('get_canvas', { canvas_id: canvas.canvas_id })
    await call('usage', {})
    const share = await call('share_canvas', { canvas_id: canvas.canvas_id, max_views: 1 })
    const open = await fetch(`${server.url}/share/${share.token}/content`, { redirect: 'manual' })
    expect(open.status).toBe(302)
    const failed = (await client.callTool({
      name: 'get_canvas',
      arguments: { canvas_id: 'missing' },
    })) as any
    expect(failed.isError).toBe(true)
    expect(failed.content[0].text).toMatch(/^canvas_not_found: /)
    await client.close()
  })

  it('starts without a warning that its types are out of date', async () => {
    const output = await server.output()
    expect(output).toContain('Ready on')
    expect(output).not.toContain('might be out of date')
  })

  it('the cron route runs the sweep', async () => {
    const res = await fetch(`${server.url}/cdn-cgi/local/scheduled?cron=*/15+*+*+*+*`)
    expect(res.status).toBe(200)
    await expect.poll(() => server.output(), { timeout: 15_000 }).toContain('"event":"sweep"')
  })
})

describe('npm run smoke', () => {
  const smoke = (args: string[], apiKey?: string) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const env = { ...process.env, CANVAS_API_KEY: apiKey ?? '' }
      const child = spawn(process.execPath, ['scripts/smoke.mjs', ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env,
      })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (d) => (stdout += d))
      child.stderr.on('data', (d) => (stderr += d))
      child.on('close', (code) => resolve({ code, stdout, stderr }))
    })

  it('checks a deployment without a key: health and the API description', async () => {
    const { code, stdout } = await smoke([server.url])
    expect(stdout).toContain('✔ GET /health answers ok')
    expect(stdout).toContain('✔ GET /openapi.json describes the API')
    expect(stdout).toContain('all checks passed (set CANVAS_API_KEY for the publish round trip)')
    expect(code).toBe(0)
  })

  it('with a key: publishes, reads back, shares, downloads and deletes, leaving nothing', async () => {
    const before = ((await (await api('/v1/canvases')).json()) as any).canvases.length
    const { code, stdout } = await smoke([server.url], key)
    expect(stdout.match(/^✔ /gm)).toHaveLength(7)
    expect(stdout).toContain('✔ delete it: gone everywhere at once')
    expect(code).toBe(0)
    expect(((await (await api('/v1/canvases')).json()) as any).canvases).toHaveLength(before)
  })

  it('fails, naming the check, when the key is not one', async () => {
    const { code, stdout } = await smoke([server.url], 'svc_not_a_key_at_all_0123456789abcdef')
    expect(stdout).toMatch(/✘ publish a canvas \(POST \/v1\/canvases, multipart\): status 401/)
    expect(code).toBe(1)
  })

  it('refuses a key on the command line, which npm prints, and uses none of it', async () => {
    const { code, stdout, stderr } = await smoke([server.url, '--key', key])
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr).toContain('set CANVAS_API_KEY instead')
    expect(stderr).not.toContain(key)
  })
})
