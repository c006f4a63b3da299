import type { Context } from 'hono'
import { readBytes } from '../http/validate'
import { validationError } from '../lib/errors'

// Forms are validated with the API's own schemas; these helpers carry a form to them and their
// verdict back to a person.

const MAX_FORM_BYTES = 64 * 1024

export async function readForm(c: Context) {
  const bytes = await readBytes(c, MAX_FORM_BYTES, 'form')
  return new URLSearchParams(new TextDecoder().decode(bytes))
}

/** The named fields of a form as the API's JSON would carry them: an empty field is left out. */
export function formFields(form: URLSearchParams, names: string[]) {
  const fields: Record<string, string> = {}
  for (const name of names) {
    const value = form.get(name)
    if (value) fields[name] = value
  }
  return fields
}

/** "password: must be at least 8 characters" → "The password must be at least 8 characters." */
export function sentence(error: Parameters<typeof validationError>[0]) {
  return `${validationError(error).message.replace(/^(\w+)(\.\d+)?: /, 'The $1 ')}.`
}

/** Only local paths: `next` must never send someone to another site after login. */
export function safeNext(next: string | undefined) {
  return next && /^\/(?!\/)[\w\-./?=&%#]*$/.test(next) && !next.startsWith('/\\') ? next : undefined
}
