import { JSONParser } from '@streamparser/json'
import { joined } from './notebook-fields'

// A notebook as its source: each cell's text under a line naming its kind (the percent format
// editors and jupytext read: `# %%`, `# %% [markdown]`), without outputs or metadata. What its
// versions' diff compares, cell by cell, and what search finds it by. A notebook cut short (the
// head of a large file) gives the cells before the cut.

export function notebookSource(text: string): string {
  return notebookCells(text)
    .map(({ kind, source }) => `# %%${kind === 'code' ? '' : ` [${kind}]`}\n${source}\n`)
    .join('\n')
}

/** A notebook's cells: each one's kind (`code`, `markdown`, `raw`) and its text. */
export function notebookCells(text: string): { kind: string; source: string }[] {
  const cells: { kind: string; source: string }[] = []
  const parser = new JSONParser({ paths: ['$.cells.*'], keepStack: false })
  parser.onValue = ({ value }) => {
    const cell = value as { cell_type?: unknown; source?: unknown }
    cells.push({ kind: String(cell.cell_type), source: joined(cell.source).replace(/\n$/, '') })
  }
  try {
    parser.write(text)
    if (!parser.isEnded) parser.end()
  } catch {
    // Not JSON, or cut short: the cells read so far.
  }
  return cells
}
