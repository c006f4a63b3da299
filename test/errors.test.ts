import { HTTPException } from 'hono/http-exception'
import { describe, expect, it } from 'vitest'
import { AppError } from '../src/lib/errors'
import { toAppError } from '../src/http/errors'

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
