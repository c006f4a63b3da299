import type * as z from 'zod/mini'
import { AppError } from '../lib/errors'
import { indexOfBytes } from '../lib/bytes'
import { extFromName } from '../lib/content-types'
import { storeDirect } from '../domain/files'
import type { AppContext } from '../http/context'
import { describing } from '../http/route-docs'
import { directTooLarge, jsonBody, mediaType, parse, readFormBytes } from '../http/validate'

/**
 * The body of a create or update, JSON or multipart/form-data, validated by the same schema and
 * read by the handler as `c.req.valid('json')` either way.
 */
export function canvasBody<S extends z.ZodMiniType<object>>(
  schema: S,
  defaults: 'create' | 'update',
) {
  const json = jsonBody(schema)
  const either: typeof json = async (c, next) => {
    if (mediaType(c) !== 'multipart/form-data') return json(c, next)
    c.req.addValidatedData('json', await readMultipart(c, schema, defaults))
    await next()
  }
  return describing({ target: 'json', schema, multipart: true }, either)
}

/**
 * A create or update sent as multipart/form-data: the `file` part is stored as a finalized file
 * and its id joins the text fields, which then pass the same schema as the JSON form.
 */
async function readMultipart<S extends z.ZodMiniType>(
  c: AppContext,
  schema: S,
  defaults: 'create' | 'update',
): Promise<z.output<S>> {
  const svc = c.var.svc
  const limit = svc.settings.maxDirectUploadBytes
  const bytes = await readFormBytes(c)
  let form: FormData
  try {
    form = await new Response(bytes, {
      headers: { 'Content-Type': c.req.header('Content-Type')! },
    }).formData()
  } catch {
    throw new AppError('invalid_request', 'malformed multipart/form-data body')
  }
  const fields: Record<string, unknown> = {}
  let file = null as File | null
  for (const [key, value] of form.entries()) {
    if (key in fields || (key === 'file' && file)) {
      throw new AppError('invalid_request', `${key}: given more than once`)
    }
    if (key === 'file') {
      if (typeof value === 'string')
        throw new AppError('invalid_request', 'file: must be a file part')
      file = value
    } else if (typeof value === 'string') {
      fields[key] = wholeText(key, value, bytes)
    } else {
      throw new AppError('invalid_request', `${key}: must be a text field`)
    }
  }
  if ('permanent' in fields) fields.permanent = parseBoolean(fields.permanent)
  if (file) {
    if ('file_id' in fields)
      throw new AppError('invalid_request', 'file: send either a file part or file_id')
    if (file.size > limit) throw directTooLarge(limit)
    if (defaults === 'create') fields.title ??= file.name || 'untitled'
    // A new version takes its own type, as a new canvas does.
    fields.ext ??= extFromName(file.name, await file.slice(0, 4096).arrayBuffer())
    // Every other field is checked before anything is stored.
    parse(schema, { ...fields, file_id: 'pending' })
    const stored = await storeDirect(
      svc,
      c.var.actor,
      await file.arrayBuffer(),
      file.type || 'application/octet-stream',
    )
    fields.file_id = stored.file_id
  }
  return parse(schema, fields)
}

/**
 * A text field as sent. The form parser turns bytes that are not UTF-8 into U+FFFD; a JSON body
 * with such bytes is refused, and so is a form: a replacement character the sender did not write
 * is one whose UTF-8 form the body does not hold.
 */
function wholeText(key: string, value: string, body: Uint8Array): string {
  // No field of a create or update is anywhere near this long (a title is 200 characters): a
  // longer one is refused before it is searched for.
  if (value.length > MAX_FIELD_CHARS) {
    throw new AppError('invalid_request', `${key}: must be at most ${MAX_FIELD_CHARS} characters`)
  }
  if (value.includes('\ufffd') && indexOfBytes(body, new TextEncoder().encode(value)) === -1) {
    throw new AppError('invalid_request', `${key}: must be valid UTF-8 text`)
  }
  return value
}

const MAX_FIELD_CHARS = 4096

function parseBoolean(value: unknown) {
  if (value === 'true') return true
  if (value === 'false') return false
  throw new AppError('invalid_request', 'permanent: must be true or false')
}
