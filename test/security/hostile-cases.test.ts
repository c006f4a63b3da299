import { env } from 'cloudflare:test'
import { expect, it } from 'vitest'
import { call, json, newAccount, newCanvas, REQUEST_ID } from '../support/api'

// No input, however malformed, gives a 500 or a non-JSON error on an API route (docs/api.md,
// errors).
it('answers odd requests with a 4xx JSON error and changes nothing', async () => {
  const account = await newAccount()
  const canvas = await newCanvas(account.key)
  const before = await env.DB.prepare('SELECT COUNT(*) AS n FROM canvases').first<any>()
  const id = canvas.canvas_id
  const requests: [string, RequestInit & { json?: unknown }][] = [
    ['/v1/canvases/%ZZ', {}],
    ['/v1/canvases/%00', {}],
    [`/v1/canvases/${id}/versions/%ZZ`, {}],
    ['/v1/canvases?limit=%ZZ', {}],
    [
      '/v1/canvases',
      { method: 'POST', body: 'null', headers: { 'Content-Type': 'application/json' } },
    ],
    [
      '/v1/canvases',
      { method: 'POST', body: '"x"', headers: { 'Content-Type': 'application/json' } },
    ],
    [
      '/v1/canvases',
      {
        method: 'POST',
        body: '{"__proto__":{"x":1}}',
        headers: { 'Content-Type': 'application/json' },
      },
    ],
    [
      '/v1/canvases',
      {
        method: 'POST',
        body: new Uint8Array([0xff, 0xfe, 0x00]),
        headers: { 'Content-Type': 'application/json' },
      },
    ],
    [
      '/v1/canvases',
      { method: 'POST', json: { file_id: 'a'.repeat(100_000), title: 'x', ext: 'txt' } },
    ],
    [
      '/v1/canvases',
      {
        method: 'POST',
        body: 'garbage',
        headers: { 'Content-Type': 'multipart/form-data; boundary=zz' },
      },
    ],
    [
      '/v1/canvases',
      { method: 'POST', body: 'garbage', headers: { 'Content-Type': 'multipart/form-data' } },
    ],
    [`/v1/canvases/${id}`, { method: 'PATCH', json: { title: 'x'.repeat(500_000) } }],
    [`/v1/canvases/${id}`, { method: 'PATCH', json: { title: 'a\u0000b' } }],
    [`/v1/canvases/${id}`, { method: 'PATCH', json: { visibility: ['public'] } }],
    [
      `/v1/canvases/${id}`,
      {
        method: 'PATCH',
        body: 'x'.repeat(2 * 1024 * 1024),
        headers: { 'Content-Type': 'application/json' },
      },
    ],
    [
      '/v1/upload/presign',
      { method: 'POST', json: { sha256: 1, ext: null, size: 1e300, mime: {} } },
    ],
    [
      '/v1/upload/presign',
      {
        method: 'POST',
        json: {
          sha256: 'a'.repeat(64),
          ext: 'txt',
          size: Number.MAX_SAFE_INTEGER + 2,
          mime: 'a/b',
        },
      },
    ],
    [
      '/v1/upload/finalize',
      {
        method: 'POST',
        json: { sha256: 'a'.repeat(64), ext: 'txt\r\nX: y', size: 1, mime: 'a/b' },
      },
    ],
    ['/_storage/%ZZ?X-Amz-Signature=1', { method: 'PUT', body: 'x' }],
    ['/_storage/files/..%2F..%2Fetc%2Fpasswd', {}],
    ['/_storage/x?X-Amz-Date=20260101T000000Z&X-Amz-Expires=99999999999&X-Amz-Signature=ab', {}],
  ]
  for (const [path, init] of requests) {
    const res = await call(path, { key: account.key, ...init })
    expect(res.status, path).toBeGreaterThanOrEqual(400)
    expect(res.status, path).toBeLessThan(500)
    const body = await json(res)
    expect(body, path).toEqual({
      error: { code: expect.any(String), message: expect.any(String), request_id: REQUEST_ID },
    })
  }
  const after = await env.DB.prepare('SELECT COUNT(*) AS n FROM canvases').first<any>()
  expect(after.n).toBe(before.n)
  expect(await json(await call(`/v1/canvases/${id}`, { key: account.key }))).toMatchObject({
    title: 'A canvas',
    version: 1,
  })
})
