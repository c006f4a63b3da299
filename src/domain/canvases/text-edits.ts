import { AppError } from '../../lib/errors'

// Literal replacements in a text, for changing part of a canvas without sending all of it. Each
// `old` must occur exactly once where it is applied, so an edit never lands somewhere its author
// did not look; the edits apply in order, each to the result of the one before.

export type TextEdit = { old: string; new: string }

// A UTF-16 code unit that is half of a pair with no other half: not text, and a TextEncoder
// would silently make it U+FFFD. An `old` that held one could also match half of a character.
const LONE_SURROGATE = /\p{Cs}/u

/** The edits' own rules, checked before anything is read. */
export function checkEdits(edits: TextEdit[]) {
  edits.forEach((edit, i) => {
    if (edit.old === '') throw new AppError('invalid_request', `edits.${i}.old: must not be empty`)
    for (const field of ['old', 'new'] as const) {
      if (LONE_SURROGATE.test(edit[field])) {
        throw new AppError(
          'invalid_request',
          `edits.${i}.${field}: is not valid Unicode (it holds an unpaired surrogate)`,
        )
      }
    }
  })
}

/** The text with every edit applied, or the first edit that cannot be, as an error. */
export function applyEdits(text: string, edits: TextEdit[]): string {
  checkEdits(edits)
  let result = text
  edits.forEach((edit, i) => {
    const at = result.indexOf(edit.old)
    const after = i > 0 ? ' (after the edits before it)' : ''
    if (at < 0) {
      throw new AppError('invalid_request', `edits.${i}.old: not found in the text${after}`)
    }
    // From the next character on, so that an overlapping second occurrence counts too.
    const again = result.indexOf(edit.old, at + 1)
    if (again >= 0) {
      throw new AppError(
        'invalid_request',
        `edits.${i}.old: occurs more than once in the text${after}, on lines ` +
          `${lineAt(result, at)} and ${lineAt(result, again)}; include more of the text around it`,
      )
    }
    // Sliced, not String.replace: `$&` and its kind in `new` are text like any other.
    result = result.slice(0, at) + edit.new + result.slice(at + edit.old.length)
  })
  return result
}

function lineAt(text: string, index: number) {
  let line = 1
  for (let i = text.indexOf('\n'); i >= 0 && i < index; i = text.indexOf('\n', i + 1)) line++
  return line
}
