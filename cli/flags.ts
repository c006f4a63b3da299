import type { Api } from './client'
import { usageError } from './errors'
import type { Renderer } from './types'

// Flag values, checked before any request is sent: a bad one is a mistake in the command line
// (exit 2), never a failure half-way through (a file uploaded, then refused). The rules are the
// API's own (src/schema/requests.ts, which the CLI may not import at run time; a test holds the
// two to the same answers).

type Value = string | boolean | string[] | undefined

/** The value of a flag that takes one: a flag given with none, or twice, is a mistake. */
function one(value: Value, name: string): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string') throw usageError(`--${name} needs one value`)
  return value
}

/** A whole number from 1 to `max`. */
export function positiveInt(value: Value, name: string, max = MAX_VERSION): number | undefined {
  const given = one(value, name)
  if (given === undefined) return undefined
  if (!/^\d+$/.test(given) || Number(given) < 1) {
    throw usageError(`--${name} must be a positive whole number`)
  }
  if (Number(given) > max) throw usageError(`--${name} must be at most ${max}`)
  return Number(given)
}

/** The highest version number a route takes (nine digits). */
export const MAX_VERSION = 999_999_999
/** The most canvases a page of `list` holds. */
export const MAX_LIMIT = 100
/** The most views a share link may allow. */
export const MAX_VIEWS = 1_000_000

const DURATION_UNITS = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 } as const
const MAX_SHARE_SECONDS = 365 * 86400

/** `30m`, `24h`, `7d`: a count and a unit (s, m, h, d, w), at most 365 days; sent as given. */
export function duration(value: Value, name: string): string | undefined {
  const given = one(value, name)
  if (given === undefined) return undefined
  const unit = given.slice(-1) as keyof typeof DURATION_UNITS
  const seconds = Number(given.slice(0, -1)) * DURATION_UNITS[unit]
  if (!/^[1-9]\d{0,8}[smhdw]$/.test(given) || seconds > MAX_SHARE_SECONDS) {
    throw usageError(
      `--${name} must be a duration such as 30m, 24h or 7d (units s, m, h, d, w), at most 365d`,
    )
  }
  return given
}

/** Characters as the API counts them: code points (`😀` is one). */
const chars = (text: string) => [...text].length

// Half of a UTF-16 pair: never a whole character.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** A canvas title: 1 to 200 characters, no control characters. */
export function title(value: Value, name = 'title'): string | undefined {
  const given = one(value, name)
  if (given === undefined) return undefined
  if (chars(given) < 1 || chars(given) > 200) {
    throw usageError(`--${name} must be 1 to 200 characters`)
  }
  if (/[\u0000-\u001f\u007f]/.test(given) || LONE_SURROGATE.test(given)) {
    throw usageError(`--${name} must not contain control characters`)
  }
  return given
}

/** A share link's password: 4 to 256 characters. */
export function sharePassword(value: Value, name = 'password'): string | undefined {
  const given = one(value, name)
  if (given === undefined) return undefined
  if (chars(given) < 4 || chars(given) > 256 || LONE_SURROGATE.test(given)) {
    throw usageError(`--${name} must be 4 to 256 characters`)
  }
  return given
}

/** A canvas id as the API gives them. */
export function canvasId(value: Value, name = 'id'): string | undefined {
  const given = one(value, name)
  if (given !== undefined && !/^[A-Za-z0-9]{1,64}$/.test(given)) {
    throw usageError(`--${name} must be a canvas id (letters and digits), got '${given}'`)
  }
  return given
}

export function visibility(value: Value, name = 'visibility'): 'private' | 'public' | undefined {
  const given = one(value, name)
  if (given !== undefined && given !== 'private' && given !== 'public') {
    throw usageError(`--${name} must be private or public, got '${given}'`)
  }
  return given
}

/** A file type as `list --type` takes it: `html`, `.html` or `HTML`. */
export function fileType(value: Value, name = 'type'): string | undefined {
  const given = one(value, name)
  if (given === undefined) return undefined
  const ext = given.replace(/^\./, '').toLowerCase()
  if (!/^[a-z0-9]{1,16}$/.test(ext)) {
    throw usageError(`--${name} must be a file extension such as html, got '${given}'`)
  }
  return ext
}

/** A `next_cursor` as `svc list` printed it. */
export function cursor(value: Value, name = 'cursor'): string | undefined {
  const given = one(value, name)
  if (given !== undefined && !/^[A-Za-z0-9_-]{1,200}$/.test(given)) {
    throw usageError(`--${name} must be a cursor as svc list printed it, got '${given}'`)
  }
  return given
}

/**
 * A renderer the service has: its form here, its existence asked of the service (one read) before
 * anything is uploaded or changed.
 */
export async function renderer(api: Api, value: Value, name = 'renderer') {
  const given = one(value, name)
  if (given === undefined) return undefined
  const known = /^[a-z]{1,32}$/.test(given)
    ? (await api.request<{ renderers: Renderer[] }>('/v1/renderers')).renderers
    : []
  if (!known.some((r) => r.renderer_id === given)) {
    throw usageError(`--${name}: unknown renderer '${given}'; see svc renderers`)
  }
  return given
}

/** An optional string flag given once (`--output`, `--main`). */
export const text = one

/** The longest comment or reply, and the longest quote one may point at, as the API counts. */
export const MAX_COMMENT_LENGTH = 10_000
export const MAX_QUOTE_LENGTH = 2_000

/** A comment's text or the quote it points at: 1 to `max` UTF-16 units, whole characters. */
export function commentText(value: Value, name: string, max = MAX_COMMENT_LENGTH) {
  const given = one(value, name)
  if (given === undefined) return undefined
  if (given.length < 1 || given.length > max || LONE_SURROGATE.test(given)) {
    throw usageError(`${name} must be 1 to ${max} characters`)
  }
  return given
}

/** A comment id as `svc comments` prints them. */
/** A review id as the service makes them (letters and digits). */
export function reviewId(value: Value, name: string): string | undefined {
  const given = one(value, name)
  if (given !== undefined && !/^[A-Za-z0-9]{1,64}$/.test(given)) {
    throw usageError(`${name} must be a review id (letters and digits), got '${given}'`)
  }
  return given
}

/** Members named by a repeated flag, or by commas: `--to a@x.com --to b@x.com`, `--to a,b`. */
export function people(value: Value, name: string): string[] | undefined {
  if (value === undefined) return undefined
  if (typeof value === 'boolean') throw usageError(`--${name} needs an email or user id`)
  const named = [value]
    .flat()
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
  if (named.some((v) => v === '')) throw usageError(`--${name} needs an email or user id`)
  return named
}

export function commentId(value: Value, name: string): string | undefined {
  const given = one(value, name)
  if (given !== undefined && !/^[A-Za-z0-9]{1,64}$/.test(given)) {
    throw usageError(`${name} must be a comment id (letters and digits), got '${given}'`)
  }
  return given
}

export const COMMENT_STATUSES = ['open', 'resolved', 'all'] as const

export function commentStatus(value: Value, name = 'status') {
  const given = one(value, name)
  if (given !== undefined && !(COMMENT_STATUSES as readonly string[]).includes(given)) {
    throw usageError(`--${name} must be open, resolved or all, got '${given}'`)
  }
  return given as (typeof COMMENT_STATUSES)[number] | undefined
}
