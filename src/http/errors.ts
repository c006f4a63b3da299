import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import { logError as log } from '../lib/log'
import { AppError, errorBody, type ErrorCode } from '../lib/errors'
import { SettingsError } from '../lib/settings'
import { requestId, type AppEnv } from './context'

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
  // The operator's mistake, not the client's: the message names the var, never its value.
  if (err instanceof SettingsError) return new AppError('internal_error', err.message)
  return new AppError('internal_error', 'internal error')
}

/**
 * The one error answer of the API: `{error:{code,message,request_id}}` with the code's status.
 * Server errors are logged with the same request id, so a report can be matched to its log line.
 */
export function handleError(err: unknown, c: Context<AppEnv>) {
  const appError = toAppError(err)
  const id = requestId(c)
  if (appError.status >= 500) logError(err, id)
  return c.json(errorBody(appError.code, appError.message, id), appError.status, {
    ...appError.headers,
    'X-Request-Id': id,
  })
}

export function logError(err: unknown, id: string) {
  log({ request_id: id }, err)
}
