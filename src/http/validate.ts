import type { Context } from 'hono'
import type * as z from 'zod/mini'
import { AppError, validationError } from '../lib/errors'

// Generous, so an oversize field is named by validation (400) before the body as a whole is refused.
const MAX_JSON_BYTES = 1024 * 1024

export function parse<S extends z.ZodMiniType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value)
  if (!result.success) throw validationError(result.error)
  return result.data
}

/** The query string, validated; a name given twice is ambiguous, so it is refused, not guessed. */
export function parseQuery<S extends z.ZodMiniType>(c: Context, schema: S): z.output<S> {
  const query: Record<string, string> = {}
  for (const [name, values] of Object.entries(c.req.queries())) {
    if (values.length > 1) throw new AppError('invalid_request', `${name}: given more than once`)
    query[name] = values[0]
  }
  return parse(schema, query)
}

export function mediaType(c: Context): string {
  return (c.req.header('Content-Type') ?? '').split(';')[0].trim().toLowerCase()
}

/** A JSON body, size-capped, parsed and validated; every failure is a 4xx with the reason. */
export async function readJson<S extends z.ZodMiniType>(
  c: Context,
  schema: S,
  options: { optional?: boolean } = {},
): Promise<z.output<S>> {
  // A body whose every field is optional may be left out entirely.
  if (options.optional && !c.req.header('Content-Type') && !hasBody(c)) return parse(schema, {})
  if (!/^application\/([\w.-]+\+)?json$/.test(mediaType(c))) {
    throw new AppError('invalid_request', 'Content-Type must be application/json')
  }
  const text = await readText(c, MAX_JSON_BYTES)
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new AppError('invalid_request', 'malformed JSON in request body')
  }
  return parse(schema, value)
}

/** Reads at most `limit` bytes; a larger body is refused without buffering the rest. */
export async function readBytes(c: Context, limit: number, what = 'body'): Promise<Uint8Array> {
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
  const out = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.byteLength
  }
  return out
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
