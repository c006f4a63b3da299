import { escapeHtml } from './escape'

// Pretty JSON as nested <details> elements: collapsible without a line of script.

const MAX_OPEN_DEPTH = 2

export function renderJson(source: string): string {
  let value: unknown
  try {
    value = JSON.parse(source)
  } catch (err) {
    return `<p class="notice">Not valid JSON (${escapeHtml(String((err as Error).message))}); shown as text.</p><pre>${escapeHtml(source)}</pre>`
  }
  return `<div class="json">${node(value, 0)}</div>`
}

function node(value: unknown, depth: number): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '<span class="p">[]</span>'
    const items = value.map((v) => `<li>${node(v, depth + 1)}</li>`).join('')
    return group('[', ']', `${value.length} item${value.length === 1 ? '' : 's'}`, items, depth)
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
    if (entries.length === 0) return '<span class="p">{}</span>'
    const items = entries
      .map(
        ([k, v]) =>
          `<li><span class="k">${escapeHtml(JSON.stringify(k))}</span>: ${node(v, depth + 1)}</li>`,
      )
      .join('')
    return group('{', '}', `${entries.length} key${entries.length === 1 ? '' : 's'}`, items, depth)
  }
  if (typeof value === 'string')
    return `<span class="s">${escapeHtml(JSON.stringify(value))}</span>`
  if (typeof value === 'number') return `<span class="n">${value}</span>`
  if (typeof value === 'boolean') return `<span class="b">${value}</span>`
  return '<span class="null">null</span>'
}

function group(open: string, close: string, summary: string, items: string, depth: number) {
  const isOpen = depth < MAX_OPEN_DEPTH ? ' open' : ''
  return `<details${isOpen}><summary><span class="p">${open}</span><span class="count">${summary}</span></summary><ul>${items}</ul><span class="p">${close}</span></details>`
}
