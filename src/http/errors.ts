import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import { AppError, errorBody, type ErrorCode } from '../lib/errors'

const BY_STATUS: Partial<Record<number, ErrorCode>> = {
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  413: 'payload_too_large',
  429: 'rate_limited',
}
const DEFAULT_MESSAGES: Partial<Record<ErrorCode, string>> = {
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  not_found: 'not found',
  payload_too_large: 'the request body is too large',
  rate_limited: 'too many requests',
}

export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err
  if (err instanceof HTTPException) {
    // Hono and its middleware raise these: the status decides the code, so a 403 or a 413 from a
    // middleware keeps its meaning; any other 4xx is a bad request.
    const code = BY_STATUS[err.status] ?? (err.status < 500 ? 'invalid_request' : null)
    if (code) return new AppError(code, err.message || DEFAULT_MESSAGES[code] || 'invalid request')
  }
  return new AppError('internal_error', 'internal error')
}

export function handleError(err: unknown, c: Context) {
  const appError = toAppError(err)
  if (appError.code === 'internal_error') console.error(JSON.stringify(describe(err)))
  return c.json(errorBody(appError.code, appError.message), appError.status, appError.headers)
}

function describe(err: unknown) {
  return err instanceof Error
    ? { level: 'error', message: err.message, stack: err.stack }
    : { level: 'error', message: String(err) }
}
