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

// Any origin will do: a path that stays on it stays on ours.
const HERE = 'https://here.invalid'

/**
 * Only this site's own addresses: `next` must never send someone to another site after login. It
 * is read as a browser would read it from a Location header (where `//host`, `/\host` and a tab
 * inside `/<tab>/host` all lead elsewhere), and kept only if it stays on this origin; what
 * comes back is its path and query as parsed, so what was checked is what is followed.
 */
export function safeNext(next: string | undefined) {
  if (!next?.startsWith('/') || /[\u0000-\u001f\u007f\\]/.test(next)) return undefined
  let url: URL
  try {
    url = new URL(next, HERE)
  } catch {
    return undefined
  }
  if (url.origin !== HERE || !url.pathname.startsWith('/') || url.pathname.startsWith('//')) {
    return undefined
  }
  return url.pathname + url.search
}
