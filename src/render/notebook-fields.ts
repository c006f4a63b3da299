// A notebook's fields as nbformat writes them, apart from the renderer: the diff and search read
// them without loading the Markdown and code renderers.

/** A notebook's text fields are a string or a list of lines. */
export function joined(value: unknown): string {
  if (typeof value === 'string') return value
  if (Array.isArray(value)) return value.filter((v) => typeof v === 'string').join('')
  return ''
}
