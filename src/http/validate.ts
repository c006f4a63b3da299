import { zValidator, type Hook } from '@hono/zod-validator'
import type { Context, MiddlewareHandler } from 'hono'
import type * as z from 'zod/mini'
import { concatBytes } from '../lib/bytes'
import { AppError, validationError } from '../lib/errors'
import type { AppEnv } from './context'
import { describing } from './route-docs'

// Request validation: the schemas parsed here, every failure the project's AppError, the one 400
// body naming the field. Ahead of parsing, guards a validator cannot do: a query name given twice
// (refused rather than guessed); a JSON body's media type, size (refused before buffering) and
// encoding. Handlers read `c.req.valid(...)`, typed as @hono/zod-validator types it; a handler
// that needs the values before its batch reads them with queryOf or jsonOf, the same checks.

// Generous, so an oversize field is named by validation (400) before the body as a whole is refused.
const MAX_JSON_BYTES = 1024 * 1024
// Room for the form's boundaries and text fields on top of the file itself.
const FORM_OVERHEAD = 64 * 1024

// Bodies read ahead of their route (to fingerprint an Idempotency-Key request): the route's own
// reader takes them from here, so the stream is read once.
const readAhead = new WeakMap<Request, Uint8Array>()

export function parse<S extends z.ZodMiniType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value)
  if (!result.success) throw validationError(result.error)
  return result.data
}

/**
 * zValidator for one part of the request; a failure throws 400 `invalid_request`. The middlewares
 * below take its type, so `c.req.valid(...)` is typed by the schema.
 */
export function valid<Target extends 'json' | 'query', S extends z.ZodMiniType>(
  target: Target,
  schema: S,
) {
  // Named type arguments: nothing in a hook that ignores its context says it is AppEnv's.
  type Throwing = Hook<z.output<S>, AppEnv, string, Target, {}, S>
  return zValidator<S, Target, AppEnv, string, Throwing>(target, schema, (result) => {
    if (!result.success) throw validationError(result.error)
  })
}

/**
 * The query string, validated by `queryOf`; a name given twice is ambiguous, so it is refused, not
 * guessed. The value goes to `c.req.valid('query')`, typed as zValidator's (as jsonBody's does).
 */
export function query<S extends z.ZodMiniType>(schema: S) {
  const validated: ReturnType<typeof valid<'query', S>> = async (c, next) => {
    // Hono types validated data as `{}`; a schema's output is whatever the schema says.
    c.req.addValidatedData('query', queryOf(c, schema) as {})
    await next()
  }
  return describing({ target: 'query', schema }, validated)
}

/**
 * The query string of a route that needs it inside its handler (to build the statements it batches
 * with the key's lookup), validated there by `queryOf`: this only describes it to /openapi.json.
 */
export function describedQuery(schema: z.ZodMiniType): MiddlewareHandler {
  return describing({ target: 'query', schema }, (_, next) => next())
}

/** The query string validated against `schema`, each name at most once. */
export function queryOf<S extends z.ZodMiniType>(c: Context, schema: S): z.output<S> {
  onceEach(c)
  return parse(schema, c.req.query())
}

function onceEach(c: Context) {
  for (const [name, values] of Object.entries(c.req.queries())) {
    if (values.length > 1) throw new AppError('invalid_request', `${name}: given more than once`)
  }
}

/**
 * A JSON body, size-capped, decoded, parsed and validated here, so the stream is read once and
 * never past the cap. The value goes to `c.req.valid('json')` directly, typed as zValidator's:
 * handing it to zValidator through Hono's body cache cost every JSON request a Response built and
 * read back (c.req.json() looks up the cached text, not the cached value).
 */
export function jsonBody<S extends z.ZodMiniType>(schema: S, options: JsonOptions = {}) {
  const validated: ReturnType<typeof valid<'json', S>> = async (c, next) => {
    // Hono types validated data as `{}`; a schema's output is whatever the schema says.
    c.req.addValidatedData('json', parse(schema, await readJsonValue(c, options)) as {})
    await next()
  }
  return describing({ target: 'json', schema, optional: options.optional }, validated)
}

/** What `jsonBody(schema)` would validate, read and checked the same way, for a handler's own use. */
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
  const ahead = readAhead.get(c.req.raw)
  if (ahead) {
    if (ahead.byteLength > limit) throw tooLarge(what, limit)
    return ahead
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
  return concatBytes(chunks, total)
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
  const bytes =
    type === 'multipart/form-data'
      ? await readFormBytes(c)
      : await readBytes(c, MAX_JSON_BYTES, JSON_TYPE.test(type) ? 'JSON body' : 'body')
  readAhead.set(c.req.raw, bytes)
  return bytes
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
