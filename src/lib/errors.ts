// The one error model: domain code throws AppError with a code; the status follows from the code.
const STATUS = {
  invalid_request: 400,
  upload_incomplete: 400,
  checksum_mismatch: 400,
  unauthorized: 401,
  share_password_required: 401,
  forbidden: 403,
  share_password_invalid: 403,
  signup_closed: 403,
  comments_disabled: 403,
  not_found: 404,
  canvas_not_found: 404,
  version_not_found: 404,
  file_not_found: 404,
  share_not_found: 404,
  review_not_found: 404,
  webhook_not_found: 404,
  comment_not_found: 404,
  member_not_found: 404,
  invite_not_found: 404,
  method_not_allowed: 405,
  share_token_taken: 409,
  conflict: 409,
  idempotency_in_progress: 409,
  webhook_limit: 409,
  last_owner: 409,
  not_approved: 409,
  share_expired: 410,
  share_exhausted: 410,
  precondition_failed: 412,
  payload_too_large: 413,
  quota_exceeded: 413,
  idempotency_key_reused: 422,
  rate_limited: 429,
  internal_error: 500,
  storage_not_configured: 500,
  service_unavailable: 503,
} as const

export type ErrorCode = keyof typeof STATUS
export type ErrorStatus = (typeof STATUS)[ErrorCode]

export const ERROR_CODES = Object.keys(STATUS) as [ErrorCode, ...ErrorCode[]]

export const statusOf = (code: ErrorCode): ErrorStatus => STATUS[code]

export class AppError extends Error {
  readonly code: ErrorCode
  readonly headers: Record<string, string>

  constructor(code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message)
    this.code = code
    this.headers = headers
  }

  get status(): ErrorStatus {
    return STATUS[this.code]
  }
}

/** The one error envelope; `request_id` ties it to the log line of the same request. */
export function errorBody(code: ErrorCode, message: string, requestId?: string) {
  return { error: requestId ? { code, message, request_id: requestId } : { code, message } }
}

/** Names the field at fault, e.g. `title: must be 1 to 200 characters`. */
export function validationError(error: {
  issues: { path: PropertyKey[]; message: string }[]
}): AppError {
  const issue = error.issues[0]
  const path = issue?.path.length ? issue.path.map(String).join('.') : ''
  const message = issue ? (path ? `${path}: ${issue.message}` : issue.message) : 'invalid request'
  return new AppError('invalid_request', message)
}
