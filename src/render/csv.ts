import { escapeHtml } from './escape'

// CSV and TSV as a table, the first row as header. Quotes follow RFC 4180.

const MAX_ROWS = 5000

export function parseDelimited(text: string, delimiter: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let field = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"'
        i++
      } else if (ch === '"') quoted = false
      else field += ch
    } else if (ch === '"' && field === '') quoted = true
    else if (ch === delimiter) {
      row.push(field)
      field = ''
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++
      row.push(field)
      rows.push(row)
      row = []
      field = ''
    } else field += ch
  }
  if (field !== '' || row.length > 0) {
    row.push(field)
    rows.push(row)
  }
  return rows
}

export function renderCsv(text: string, ext: string): string {
  const rows = parseDelimited(text.replace(/^\uFEFF/, ''), ext === 'tsv' ? '\t' : ',')
  if (rows.length === 0) return '<p class="notice">Empty table.</p>'
  const [header, ...body] = rows
  const shown = body.slice(0, MAX_ROWS)
  const cells = (r: string[], tag: string) =>
    r.map((c) => `<${tag}>${escapeHtml(c)}</${tag}>`).join('')
  const more =
    body.length > MAX_ROWS
      ? `<p class="notice">Showing the first ${MAX_ROWS} of ${body.length} rows; download the file for all.</p>`
      : ''
  return `<div class="table-wrap"><table class="csv"><thead><tr>${cells(header, 'th')}</tr></thead><tbody>${shown.map((r) => `<tr>${cells(r, 'td')}</tr>`).join('')}</tbody></table></div>${more}`
}
