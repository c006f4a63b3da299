import type { HtmlBudget } from './budget'
import { escapeHtml } from '../lib/escape'

// CSV and TSV as a table, the first row as header. Quotes follow RFC 4180. Cells are written as
// they are parsed, so a wide row or a long file stops at the budget without being held whole.

const MAX_ROWS = 5000

/**
 * Calls `cell` for each field with its row number, and `endRow` after each row; either may answer
 * false to stop. The last row needs no line break.
 */
export function eachCell(
  text: string,
  delimiter: string,
  cell: (value: string, row: number) => boolean,
  endRow: () => boolean,
) {
  // A field runs to the next delimiter or line break: found by a sticky regex, not char by char.
  // A quote is special only at the start of a field, as the character-wise reading had it.
  const rest = new RegExp(`[^${delimiter === '\t' ? '\\t' : delimiter}\\r\\n]*`, 'y')
  let row = 0
  let open = false
  let i = 0
  while (i < text.length) {
    let value = ''
    if (text.charCodeAt(i) === 34) {
      // RFC 4180: "" inside quotes is a quote; text after the closing quote joins the field.
      i++
      for (;;) {
        const quote = text.indexOf('"', i)
        if (quote === -1) {
          value += text.slice(i)
          i = text.length
          break
        }
        value += text.slice(i, quote)
        i = quote + 1
        if (text.charCodeAt(i) !== 34) break
        value += '"'
        i++
      }
    }
    rest.lastIndex = i
    rest.exec(text)
    value += text.slice(i, rest.lastIndex)
    i = rest.lastIndex
    open = true
    if (!cell(value, row)) return
    if (text[i] === delimiter) {
      i++
      // A delimiter at the very end leaves one more, empty, field.
      if (i === text.length && !cell('', row)) return
      continue
    }
    if (text[i] === '\r' && text[i + 1] === '\n') i++
    i++
    open = false
    if (!endRow()) return
    row++
  }
  if (open) endRow()
}

export function renderCsv(budget: HtmlBudget, text: string, ext: string) {
  const source = text.replace(/^\uFEFF/, '')
  if (source === '') {
    budget.add('<p class="notice">Empty table.</p>')
    return
  }
  let inHeader = true
  let rowOpen = true
  let more = false
  budget.add('<div class="table-wrap"><table class="csv"><thead><tr>')
  eachCell(
    source,
    ext === 'tsv' ? '\t' : ',',
    (value, row) => {
      if (row > MAX_ROWS) {
        more = true
        return false
      }
      if (!rowOpen) {
        if (!budget.add('<tr>')) return false
        rowOpen = true
      }
      const tag = inHeader ? 'th' : 'td'
      return budget.add(`<${tag}>${escapeHtml(value)}</${tag}>`)
    },
    () => {
      budget.close(inHeader ? '</tr></thead><tbody>' : '</tr>')
      inHeader = false
      rowOpen = false
      return !budget.cut
    },
  )
  if (rowOpen) budget.close(inHeader ? '</tr></thead>' : '</tr>')
  budget.close(inHeader ? '</table></div>' : '</tbody></table></div>')
  if (more) {
    budget.add(
      `<p class="notice">Showing the first ${MAX_ROWS} rows; download the file for all.</p>`,
    )
  }
}
