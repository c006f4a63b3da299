import { HTTPException } from 'hono/http-exception'
import { describe, expect, it, vi } from 'vitest'
import { AppError } from '../src/lib/errors'
import { toAppError } from '../src/http/errors'
import { call, errorOf, json } from './support/api'

// One error model: whatever raised it, an error becomes an AppError whose code follows its status.

describe('toAppError', () => {
  it('maps a Hono HTTPException by its status first', () => {
    const cases: [number, string, number][] = [
      [400, 'invalid_request', 400],
      [401, 'unauthorized', 401],
      [403, 'forbidden', 403],
      [404, 'not_found', 404],
      [405, 'invalid_request', 400],
      [413, 'payload_too_large', 413],
      [429, 'rate_limited', 429],
    ]
    for (const [status, code, answered] of cases) {
      const error = toAppError(new HTTPException(status as 400, { message: 'from middleware' }))
      expect([error.code, error.status, error.message], String(status)).toEqual([
        code,
        answered,
        'from middleware',
      ])
    }
    expect(toAppError(new HTTPException(403)).message).toBe('forbidden')
  })

  it('keeps an AppError and hides anything else behind internal_error', () => {
    const own = new AppError('canvas_not_found', 'canvas not found')
    expect(toAppError(own)).toBe(own)
    expect(toAppError(new HTTPException(502)).code).toBe('internal_error')
    const hidden = toAppError(new Error('secret detail'))
    expect([hidden.code, hidden.message]).toEqual(['internal_error', 'internal error'])
  })
})

describe('request ids', () => {
  it('tie every error body to its response header, from cf-ray when Cloudflare sent one', async () => {
    const ray = '8f1c2a3b4c5d6e7f-SJC'
    const traced = await call('/v1/me', { headers: { 'cf-ray': ray } })
    expect(traced.status).toBe(401)
    expect(traced.headers.get('X-Request-Id')).toBe(ray)
    expect((await json(traced)).error.request_id).toBe(ray)

    // No cf-ray, or one nobody sane would send: a fresh random id each time.
    const ids = new Set<string>()
    for (const header of [undefined, 'x'.repeat(65), 'a b', '<script>', 'é']) {
      const res = await call(
        '/v1/me',
        header === undefined ? {} : { headers: { 'cf-ray': header } },
      )
      const body = await json(res)
      expect(body).toEqual(errorOf('unauthorized', /missing API key/))
      expect(body.error.request_id).toMatch(/^[A-Za-z0-9]{16}$/)
      expect(res.headers.get('X-Request-Id')).toBe(body.error.request_id)
      ids.add(body.error.request_id)
    }
    expect(ids.size).toBe(5)

    const page = await call('/no/such/page', { headers: { 'cf-ray': ray } })
    expect([page.status, page.headers.get('X-Request-Id')]).toEqual([404, ray])
  })

  it('appear in the log line of a server error, matching the body', async () => {
    const logged: string[] = []
    const spy = vi.spyOn(console, 'error').mockImplementation((line) => logged.push(String(line)))
    try {
      const down = () => {
        throw new Error('D1 is down')
      }
      const broken = { prepare: down, batch: down }
      const res = await call('/v1/me', {
        key: 'svc_' + 'a'.repeat(40),
        env: { DB: broken as unknown as D1Database },
      })
      const body = await json(res)
      expect(body).toEqual(errorOf('internal_error', 'internal error'))
      const lines = logged.map((line) => JSON.parse(line))
      expect(lines).toContainEqual(
        expect.objectContaining({ level: 'error', request_id: body.error.request_id }),
      )
    } finally {
      spy.mockRestore()
    }
  })
})
