import { formatSize } from '../lib/format'

// The API's messages name fields and count bytes for programs ("size: at most 5368709120 bytes");
// the web app says the same to a person, as a sentence, with the field as the page or upload
// names it and sizes as people read them.

const FIELDS: [RegExp, (match: RegExpExecArray) => string][] = [
  [/^items\.(\d+)\.path$/, (m) => `The path of file ${Number(m[1]) + 1}`],
  [/^items(\.\d+)?(\.file_id)?$/, () => 'The list of files'],
  [/^(size|file_id)$/, () => 'The file'],
  [/^sha256$/, () => 'The file’s checksum'],
  [/^ext$/, () => 'The file’s type'],
  [/^mime$/, () => 'The file’s media type'],
  [/^main$/, () => 'The main file'],
  [/^(name|title)$/, () => 'The name'],
  [/^visibility$/, () => 'The visibility'],
  [/^canvas_id$/, () => 'The canvas'],
  [/^view$/, () => 'The view'],
  [/^body$/, () => 'The comment'],
  [/^anchor(\..+)?$/, () => 'The text or point commented on'],
  [/^quota(_bytes)?$/, () => 'The storage quota'],
  [/^default_expires_in$/, () => 'How long new canvases live'],
]

/** "size: at most 5368709120 bytes" → "The file must be at most 5.0 GB." */
export function forPeople(message: string): string {
  let text = message.trim()
  const field = /^([a-z_][\w.]*): (.+)$/s.exec(text)
  if (field) {
    const found = FIELDS.map(([pattern, label]) => {
      const match = pattern.exec(field[1])
      return match ? label(match) : null
    }).find((label) => label !== null)
    const rest = field[2].replace(/^(at most|at least)\b/, 'must be $1')
    text = found ? `${found} ${rest}` : rest
  }
  text = text
    // Which figure was sent says little; the limit says what to do.
    .replace(/\b\d+ bytes is over the limit of (\d+) bytes/, 'is over the limit of $1 bytes')
    .replace(/\b(\d{4,}) bytes\b/g, (_, n: string) => formatSize(Number(n)))
  text = text.charAt(0).toUpperCase() + text.slice(1)
  return /[.!?]$/.test(text) ? text : `${text}.`
}
