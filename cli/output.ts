// Everything the CLI prints passes here: a server's strings (titles, names, ids, dates, hashes,
// error messages) are printed with the characters a terminal would act on or that make text read
// as other text written out as `\u001b`-style escapes, so that no answer can set the window's
// title, clear the screen, move the cursor or reverse a name. Content (`pull`, `download`) is not
// a message and never passes here.

// C0 and C1 controls, DEL, and the bidirectional marks, embeddings, overrides and isolates.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g
// JSON.stringify escapes C0 itself and leaves the rest raw.
const UNSAFE_IN_JSON = /[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

const escaped = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`

/** Text with every control and bidirectional character written out as an escape. */
export const visible = (text: string) => text.replace(UNSAFE, escaped)

/**
 * JSON whose strings carry no raw control or bidirectional character (escaped as JSON allows:
 * `\u009b`), so it parses back to the same value and prints safely on a terminal.
 */
export const jsonText = (value: unknown, indent?: number) =>
  JSON.stringify(value, null, indent).replace(UNSAFE_IN_JSON, escaped)

/**
 * Text the CLI laid out itself, its own colours and line breaks around values already made
 * visible: printed as it is. Every plain string is made visible whole.
 */
export class Formatted {
  constructor(readonly text: string) {}
}

type Printable = string | Formatted

const render = (text: Printable) => (text instanceof Formatted ? text.text : visible(text))

/** A line of the result, on stdout. */
export function print(text: Printable) {
  process.stdout.write(render(text) + '\n')
}

/** A line about the work (progress notes, warnings, errors), on stderr. */
export function note(text: Printable) {
  process.stderr.write(render(text) + '\n')
}

/** The result as one JSON document; `line`: on one line, as each of a stream of documents. */
export function printJson(value: unknown, options: { line?: boolean } = {}) {
  print(new Formatted(jsonText(value, options.line ? undefined : 2)))
}

const colour = () => process.stdout.isTTY && !process.env.NO_COLOR && process.env.TERM !== 'dumb'
const styled = (open: string, text: string) =>
  new Formatted(colour() ? `\x1b[${open}m${visible(text)}\x1b[22m` : visible(text))
export const bold = (text: string) => styled('1', text)
export const dim = (text: string) => styled('2', text)

/** Rows as aligned columns (measured as they print), the header in bold. */
export function table(headers: string[], rows: string[][]): Formatted {
  const shown = rows.map((row) => row.map(visible))
  const sizes = widths([headers, ...shown])
  return new Formatted(
    [bold(line(headers, sizes)).text, ...shown.map((r) => line(r, sizes))].join('\n'),
  )
}

/** Rows as aligned columns with no header: labelled values, a row as short as it needs. */
export function columns(rows: string[][]): Formatted {
  const shown = rows.map((row) => row.map(visible))
  const sizes = widths(shown)
  return new Formatted(shown.map((r) => line(r, sizes)).join('\n'))
}

const widths = (rows: string[][]) =>
  Array.from({ length: Math.max(0, ...rows.map((r) => r.length)) }, (_, i) =>
    Math.max(...rows.map((r) => r[i]?.length ?? 0)),
  )

const line = (cells: string[], sizes: number[]) =>
  cells
    .map((c, i) => c.padEnd(sizes[i]))
    .join('  ')
    .trimEnd()
