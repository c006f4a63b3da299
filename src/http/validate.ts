import { zValidator } from '@hono/zod-validator'
import type { Context, MiddlewareHandler } from 'hono'
import type * as z from 'zod/mini'
import { concatBytes } from '../lib/bytes'
import { AppError, validationError } from '../lib/errors'
import type { AppEnv } from './context'
import { describing } from './route-docs'

// Request validation, one way for every part of a request: `jsonBody`, `query` and `params` are
// Hono's zod validator (`zValidator`) with one hook, which turns a failure into the project's
// AppError, the one 400 body naming the field; `c.req.valid(...)` is the value, typed by the
// schema. Ahead of it, guards a schema cannot say: a query name given twice (refused rather than
// guessed); a JSON body's media type, size (refused before buffering) and encoding.

// Generous, so an oversize field is named by validation (400) before the body as a whole is refused.
const MAX_JSON_BYTES = 1024 * 1024
// Room for the form's boundaries and text fields on top of the file itself.
const FORM_OVERHEAD = 64 * 1024

// A body read once, by whichever step reads it first (a validator, or the fingerprint of an
// Idempotency-Key request): every later reader takes the same bytes.
const readAlready = new WeakMap<Request, Uint8Array>()

export function parse<S extends z.ZodMiniType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value)
  if (!result.success) throw validationError(result.error)
  return result.data
}

type Target = 'json' | 'query' | 'param'

/** A route step that validates one part of the request: `c.req.valid(target)` is its value. */
export type Validated<T extends Target, S extends z.ZodMiniType> = MiddlewareHandler<
  AppEnv,
  string,
  { in: { [K in T]: z.input<S> }; out: { [K in T]: z.output<S> } }
>

/** The one hook of every validator: a failure is the 400 that names the field. */
function refuse(result: { success: boolean; error?: z.core.$ZodError }) {
  if (!result.success && result.error) throw validationError(result.error)
}

function validated<T extends Target, S extends z.ZodMiniType>(
  target: T,
  schema: S,
  guard?: (c: Context<AppEnv>) => Promise<void> | void,
): Validated<T, S> {
  const check = zValidator(target, schema, refuse) as unknown as Validated<T, S>
  if (!guard) return check
  return async (c, next) => {
    await guard(c)
    return check(c, next)
  }
}

/**
 * A JSON body, size-capped, decoded and validated, the stream read once and never past the cap.
 * `optional`: a body whose every field is optional may be left out entirely.
 */
export function jsonBody<S extends z.ZodMiniType>(schema: S, options: JsonOptions = {}) {
  const step = validated('json', schema, (c) => readJsonAhead(c, options))
  return describing({ target: 'json', schema, optional: options.optional }, step)
}

/** The query string; a name given twice is ambiguous, so it is refused, not guessed. */
export function query<S extends z.ZodMiniType>(schema: S) {
  const step = validated('query', schema, (c) => {
    for (const [name, values] of Object.entries(c.req.queries())) {
      if (values.length > 1) throw new AppError('invalid_request', `${name}: given more than once`)
    }
  })
  return describing({ target: 'query', schema }, step)
}

/** The path's parameters, percent-decoded as Hono decodes them. */
export function params<S extends z.ZodMiniType>(schema: S) {
  return validated('param', schema)
}

/** A multipart or JSON body read by a route of its own kind (canvasBody): the same checks. */
export async function jsonOf<S extends z.ZodMiniType>(c: Context, schema: S): Promise<z.output<S>> {
  return parse(schema, await readJsonValue(c, {}))
}

type JsonOptions = {
  /** A body whose every field is optional may be left out entirely. */
  optional?: boolean
}

const JSON_TYPE = /^application\/([\w.-]+\+)?json$/

export function mediaType(c: Context): string {
  return (c.req.header('Content-Type') ?? '').split(';')[0].trim().toLowerCase()
}

/**
 * The body checked and read for the validator, which then parses it again from Hono's body cache:
 * its own reading would buffer any size, and names a failure in words of its own. A body left out
 * where that is allowed reaches the validator as no JSON, which it takes as `{}`.
 */
async function readJsonAhead(c: Context, options: JsonOptions) {
  if (options.optional && !c.req.header('Content-Type') && !hasBody(c)) return
  const value = await readJsonValue(c, options)
  c.req.bodyCache.json = Promise.resolve(value)
}

/** The JSON value of the body; every failure is a 4xx with the reason. */
async function readJsonValue(c: Context, options: JsonOptions): Promise<unknown> {
  if (options.optional && !c.req.header('Content-Type') && !hasBody(c)) return {}
  if (!JSON_TYPE.test(mediaType(c))) {
    throw new AppError('invalid_request', 'Content-Type must be application/json')
  }
  const text = await readText(c, MAX_JSON_BYTES)
  try {
    return JSON.parse(text)
  } catch {
    throw new AppError('invalid_request', 'malformed JSON in request body')
  }
}

/** Reads at most `limit` bytes; a larger body is refused without buffering the rest. */
export async function readBytes(c: Context, limit: number, what = 'body'): Promise<Uint8Array> {
  const already = readAlready.get(c.req.raw)
  if (already) {
    if (already.byteLength > limit) throw tooLarge(what, limit)
    return already
  }
  const declared = Number(c.req.header('Content-Length'))
  if (declared > limit) throw tooLarge(what, limit)
  const body = c.req.raw.body
  if (!body) return new Uint8Array(0)
  const chunks: Uint8Array[] = []
  let total = 0
  const reader = body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > limit) {
      await reader.cancel()
      throw tooLarge(what, limit)
    }
    chunks.push(value)
  }
  const bytes = concatBytes(chunks, total)
  readAlready.set(c.req.raw, bytes)
  return bytes
}

/** A multipart body, within the direct upload limit plus the form's own overhead. */
export async function readFormBytes<E extends AppEnv>(c: Context<E>): Promise<Uint8Array> {
  const limit = c.var.svc.settings.maxDirectUploadBytes
  return readBytes(c, limit + FORM_OVERHEAD, 'direct upload').catch((err) => {
    throw err instanceof AppError && err.code === 'payload_too_large' ? directTooLarge(limit) : err
  })
}

export function directTooLarge(limit: number) {
  return new AppError(
    'payload_too_large',
    `direct uploads are limited to ${limit} bytes; use the presigned flow (POST /v1/upload/presign)`,
  )
}

/**
 * The whole body, read before its route runs, within the largest cap a route applies to its media
 * type: multipart is a direct upload, anything else at most a JSON body. The route's own reader
 * then gets these bytes, and applies its own cap to them.
 */
export async function readBodyAhead(c: Context<AppEnv>): Promise<Uint8Array> {
  const type = mediaType(c)
  return type === 'multipart/form-data'
    ? readFormBytes(c)
    : readBytes(c, MAX_JSON_BYTES, JSON_TYPE.test(type) ? 'JSON body' : 'body')
}

function hasBody(c: Context) {
  const length = c.req.header('Content-Length')
  return length ? Number(length) > 0 : c.req.raw.body !== null
}

async function readText(c: Context, limit: number): Promise<string> {
  const bytes = await readBytes(c, limit, 'JSON body')
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)
  } catch {
    throw new AppError('invalid_request', 'request body is not valid UTF-8')
  }
}

function tooLarge(what: string, limit: number) {
  return new AppError('payload_too_large', `${what} is over the limit of ${limit} bytes`)
}
