import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { localTarget, presignUrl } from '../src/storage/presign'
import {
  bytesOf,
  call,
  errorOf,
  follow,
  json,
  newAccount,
  newCanvas,
  REQUEST_ID,
  upload,
} from './support/api'

describe('content and version downloads', () => {
  it('302 to a signed URL that serves the bytes inline, sandboxed', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, '<script>alert(1)</script>', {
      ext: 'html',
      title: 'Page',
      mime: 'application/x-evil',
    })
    const res = await call(`/v1/canvases/${canvas.canvas_id}/content`, { key: account.key })
    expect(res.status).toBe(302)
    const location = new URL(res.headers.get('Location')!)
    expect(location.pathname).toMatch(/^\/_storage\/files\/[0-9a-f]{2}\//)
    expect(location.searchParams.get('X-Amz-Expires')).toBe('300')
    const content = await follow(res)
    expect(content.status).toBe(200)
    expect(await content.text()).toBe('<script>alert(1)</script>')
    // The type comes from the extension's allowlist, never from the uploader's mime.
    expect(content.headers.get('Content-Type')).toBe('text/html; charset=utf-8')
    expect(content.headers.get('Content-Disposition')).toBe(
      `inline; filename="Page.html"; filename*=UTF-8''Page.html`,
    )
    expect(content.headers.get('Content-Security-Policy')).toMatch(/^sandbox;/)
    expect(content.headers.get('Content-Security-Policy')).not.toContain('allow-same-origin')
    expect(content.headers.get('X-Content-Type-Options')).toBe('nosniff')
  })

  it('dl=1 makes it an attachment with a sanitized name', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'x', { title: 'a"b\\c/../d; évite', ext: 'txt' })
    const content = await follow(
      await call(`/v1/canvases/${canvas.canvas_id}/content?dl=1`, { key: account.key }),
    )
    expect(content.headers.get('Content-Disposition')).toBe(
      `attachment; filename="a_b_c_.._d; _vite.txt"; filename*=UTF-8''a%22b_c_.._d%3B%20%C3%A9vite.txt`,
    )
    const bad = await call(`/v1/canvases/${canvas.canvas_id}/content?dl=yes`, { key: account.key })
    expect(bad.status).toBe(400)
    expect(await json(bad)).toEqual(errorOf('invalid_request', 'dl: must be 1 or 0'))
  })

  it('unknown types are served as application/octet-stream', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'MZ', { ext: 'exe', mime: 'text/html' })
    const content = await follow(
      await call(`/v1/canvases/${canvas.canvas_id}/content`, { key: account.key }),
    )
    expect(content.headers.get('Content-Type')).toBe('application/octet-stream')
  })

  it('each version downloads its own bytes; a missing version is version_not_found', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'first')
    await call(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'PATCH',
      key: account.key,
      json: { file_id: await upload(account.key, bytesOf('second')) },
    })
    const text = async (path: string) =>
      (
        await follow(await call(`/v1/canvases/${canvas.canvas_id}${path}`, { key: account.key }))
      ).text()
    expect(await text('/versions/1')).toBe('first')
    expect(await text('/versions/2')).toBe('second')
    expect(await text('/content')).toBe('second')
    const missing = await call(`/v1/canvases/${canvas.canvas_id}/versions/3`, { key: account.key })
    expect(missing.status).toBe(404)
    expect(await json(missing)).toEqual(
      errorOf('version_not_found', 'version: canvas has no version 3'),
    )
    for (const bad of ['0', 'x', '-1', '1.5']) {
      const res = await call(`/v1/canvases/${canvas.canvas_id}/versions/${bad}`, {
        key: account.key,
      })
      expect(res.status).toBe(400)
      expect(await json(res)).toEqual(
        errorOf('invalid_request', 'version: must be a positive whole number'),
      )
    }
  })

  it('the signed GET supports ranges and refuses tampering or expiry', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, '0123456789')
    const res = await call(`/v1/canvases/${canvas.canvas_id}/content`, { key: account.key })
    const location = res.headers.get('Location')!
    const part = await call(location, { headers: { Range: 'bytes=2-5' } })
    expect(part.status).toBe(206)
    expect(part.headers.get('Content-Range')).toBe('bytes 2-5/10')
    expect(await part.text()).toBe('2345')
    // RFC 9110: valid ranges are parts (the end clamped), a malformed one is ignored (200, the
    // whole body), one wholly past the end is 416 with the size.
    const cases: [string, number, string, string | null][] = [
      ['bytes=7-', 206, '789', 'bytes 7-9/10'],
      ['bytes=-3', 206, '789', 'bytes 7-9/10'],
      ['bytes=-30', 206, '0123456789', 'bytes 0-9/10'],
      ['bytes=8-99', 206, '89', 'bytes 8-9/10'],
      ['BYTES=0-0', 206, '0', 'bytes 0-0/10'],
      ['bytes=5-2', 200, '0123456789', null],
      ['bytes=abc', 200, '0123456789', null],
      ['bytes=0-1,4-5', 200, '0123456789', null],
      ['items=0-1', 200, '0123456789', null],
      ['bytes=', 200, '0123456789', null],
      ['bytes=999999-', 416, '', 'bytes */10'],
      ['bytes=10-12', 416, '', 'bytes */10'],
      ['bytes=-0', 416, '', 'bytes */10'],
    ]
    for (const [range, status, body, contentRange] of cases) {
      const res = await call(location, { headers: { Range: range } })
      expect(res.status, range).toBe(status)
      expect(await res.text(), range).toBe(body)
      expect(res.headers.get('Content-Range'), range).toBe(contentRange)
    }
    const tampered = new URL(location)
    tampered.searchParams.set('response-content-type', 'text/html')
    const refused = await call(tampered.toString())
    expect(refused.status).toBe(403)
    expect(await json(refused)).toEqual(errorOf('forbidden', 'the signature does not match'))
    const key = new URL(location).pathname.replace('/_storage/', '')
    const target = localTarget('http://canvas.test', env.STORAGE_SIGNING_SECRET)
    const old = await presignUrl(target, 'GET', key, 300, {}, new Date(Date.now() - 301_000))
    const expired = await call(old)
    expect(expired.status).toBe(403)
    expect(await json(expired)).toEqual(errorOf('forbidden', 'the signed URL has expired'))
    expect((await call(location)).status).toBe(200)
  })

  it('the signed URL uses CONTENT_URL when set', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key)
    const res = await call(`/v1/canvases/${canvas.canvas_id}/content`, {
      key: account.key,
      env: { CONTENT_URL: 'https://usercontent.canvas.test/' },
    })
    expect(res.headers.get('Location')).toMatch(
      /^https:\/\/usercontent\.canvas\.test\/_storage\/files\//,
    )
    const content = await follow(res)
    expect(await content.text()).toBe('hello canvas')
  })
})

describe('usage', () => {
  it('counts canvases, versions, files and bytes of the workspace only', async () => {
    const account = await newAccount()
    const a = await newCanvas(account.key, 'aaaa')
    await newCanvas(account.key, 'bbbbbb', { permanent: true })
    await call(`/v1/canvases/${a.canvas_id}`, {
      method: 'PATCH',
      key: account.key,
      json: { visibility: 'public' },
    })
    // Same bytes as canvas a: a new version, but no new stored file.
    await call(`/v1/canvases/${a.canvas_id}`, {
      method: 'PATCH',
      key: account.key,
      json: { file_id: await upload(account.key, bytesOf('aaaa')) },
    })
    await newCanvas((await newAccount()).key, 'someone else')
    const res = await call('/v1/usage', { key: account.key })
    expect(res.status).toBe(200)
    expect(await json(res)).toEqual({
      workspace_id: account.workspaceId,
      canvases: { total: 2, temporary: 1, permanent: 1, public: 1, private: 1 },
      versions: 3,
      files: 2,
      bytes: { content: 14, stored: 10 },
      shares: { active: 0 },
      limits: {
        max_file_bytes: 5368709120,
        max_direct_upload_bytes: 10485760,
        temp_canvas_ttl: 86400,
        upload_url_ttl: 900,
        download_url_ttl: 300,
        quota_bytes: null,
        default_expires_in: '1d',
      },
    })
  })
})

describe('health', () => {
  it('503 when D1 is unreachable', async () => {
    const broken = new Proxy(env.DB, {
      get: (target, prop) =>
        prop === 'prepare'
          ? () => {
              throw new Error('D1 is down')
            }
          : Reflect.get(target, prop),
    })
    const res = await call('/health', { env: { DB: broken } })
    expect(res.status).toBe(503)
    expect(await json(res)).toEqual({
      ok: false,
      error: {
        code: 'service_unavailable',
        message: 'database unreachable',
        request_id: REQUEST_ID,
      },
    })
  })
})
