import { JSONParser } from '@streamparser/json'
import { ansiHtml } from './ansi'
import type { HtmlBudget } from './budget'
import { HIGHLIGHT_LIMIT, highlight } from './code'
import { notesDrawings } from './drawing'
import { MARKDOWN_INPUT_LIMIT, markdownHtml } from './markdown'
import { joined } from './notebook-fields'
import { MAX_OUTPUT_BYTES, notebookOutput } from './notebook-outputs'
import { escapeHtml } from '../lib/escape'
import { formatSize } from '../lib/format'

// Jupyter notebooks (nbformat 4), drawn on the server cell by cell as the file streams in: the
// parser keeps one cell at a time, so a notebook of 50 MiB costs the cells that fit the frame's
// budget, not its size. Markdown cells go through the Markdown renderer (math and diagrams
// included), code cells through the highlighter in the notebook's language, outputs through
// notebook-outputs.ts. Nothing runs: there is no kernel.

/** The cells shown at most; past them the frame says so. */
export const MAX_CELLS = 5000
/** Of the notebook's bytes, the most read. */
export const MAX_NOTEBOOK_BYTES = 64 * 1024 * 1024
// One cell is parsed whole before it is shown (its outputs' strings included): reading stops at a
// cell larger than this, which costs the parser time and shows nothing (an output is shown up to
// MAX_OUTPUT_BYTES).
export const MAX_CELL_BYTES = 16 * 1024 * 1024
// Highlighting costs time with the text (BENCHMARKS.md, rendering): the code cells of one
// notebook share this allowance, the rest are shown plain.
const HIGHLIGHT_ALLOWANCE = 4 * HIGHLIGHT_LIMIT

type Cell = {
  cell_type?: unknown
  source?: unknown
  execution_count?: unknown
  outputs?: unknown
}

/** Where a notebook's rendering stopped before its end, if it did. */
type Stop = 'budget' | 'cells' | 'bytes' | 'cell' | { error: string } | null

export type NotebookInput = {
  chunks: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>
  /** The notebook's language when known beforehand (read from its end, content.ts). */
  language?: string | null
}

export async function renderNotebook(budget: HtmlBudget, input: NotebookInput) {
  const state = {
    cells: 0,
    language: input.language ?? null,
    highlight: { left: HIGHLIGHT_ALLOWANCE },
    stop: null as Stop,
    read: 0,
    /** Bytes read since the last cell ended. */
    inCell: 0,
    /** The beginning of the file, shown when it is not a notebook. */
    head: '',
  }
  const decoder = new TextDecoder()
  const parser = new JSONParser({
    paths: ['$.cells.*', '$.metadata', '$.nbformat'],
    keepStack: false,
  })
  parser.onValue = ({ value, key, stack }) => {
    if (state.stop) return
    if (stack.length === 1 && key === 'metadata') state.language ??= languageOf(value)
    else if (stack.length === 1 && key === 'nbformat' && value !== 4) {
      state.stop = { error: `nbformat ${String(value)}; only nbformat 4 is shown` }
    } else if (stack.length === 2 && typeof key === 'number') {
      state.inCell = 0
      writeCell(budget, value as Cell, state)
    }
  }
  budget.add('<div class="notebook">')
  try {
    for await (const chunk of input.chunks) {
      const size = typeof chunk === 'string' ? chunk.length : chunk.byteLength
      if (state.head.length < HEAD_CHARS) state.head += textOf(chunk, decoder).slice(0, HEAD_CHARS)
      state.read += size
      state.inCell += size
      // What follows the notebook's closing brace (a newline) is not the parser's.
      if (parser.isEnded) break
      parser.write(chunk)
      if (state.stop) break
      if (state.read > MAX_NOTEBOOK_BYTES) state.stop = 'bytes'
      else if (state.inCell > MAX_CELL_BYTES) state.stop = 'cell'
      if (state.stop) break
    }
    if (state.read === 0) state.stop = { error: 'the file is empty' }
    // The parser ends by itself after the notebook's closing brace.
    if (!state.stop && !parser.isEnded) parser.end()
  } catch (error) {
    state.stop ??= { error: error instanceof Error ? error.message : String(error) }
  }
  budget.close('</div>')
  ended(budget, state.stop, state.cells, state.head)
}

function writeCell(
  budget: HtmlBudget,
  cell: Cell,
  state: { cells: number; language: string | null; highlight: { left: number }; stop: Stop },
) {
  if (state.cells >= MAX_CELLS) {
    state.stop = 'cells'
    return
  }
  state.cells++
  // Escaping makes text longer, never shorter: a source is cut before it is escaped.
  const whole = joined(cell.source)
  const source = whole.slice(0, MAX_OUTPUT_BYTES)
  const html =
    cell.cell_type === 'markdown'
      ? `<div class="cell markdown">${markdownHtml(source.slice(0, MARKDOWN_INPUT_LIMIT), state.highlight)}</div>`
      : cell.cell_type === 'code'
        ? codeInput(cell, source, state)
        : `<div class="cell raw"><pre>${escapeHtml(source)}</pre></div>`
  if (!budget.add(html)) {
    state.stop = 'budget'
    return
  }
  notesDrawings(budget, html)
  if (whole.length > source.length) {
    budget.add(
      `<p class="notice">This cell's source is cut at ${formatSize(MAX_OUTPUT_BYTES)}.</p>`,
    )
  }
  if (cell.cell_type !== 'code') return
  for (const output of Array.isArray(cell.outputs) ? cell.outputs : []) {
    if (!notebookOutput(budget, output, state.highlight)) {
      state.stop = 'budget'
      break
    }
  }
  budget.close('</div></div>')
}

/** A code cell's prompt and source; its outputs follow inside the same cell. */
function codeInput(
  cell: Cell,
  source: string,
  state: { language: string | null; highlight: { left: number } },
) {
  const count = typeof cell.execution_count === 'number' ? String(cell.execution_count) : '&nbsp;'
  state.highlight.left -= source.length
  const code =
    state.highlight.left >= 0 && state.language
      ? highlight(source, state.language)
      : escapeHtml(source)
  return `<div class="cell code"><div class="prompt">In [${count}]:</div><div class="cell-body"><pre class="input"><code class="hljs">${code}</code></pre>`
}

function ended(budget: HtmlBudget, stop: Stop, cells: number, head: string) {
  if (stop === null && cells === 0) {
    budget.close('<p class="notice">This notebook has no cells to show.</p>')
    return
  }
  if (stop === null || stop === 'budget') return
  if (stop === 'cell') {
    const size = formatSize(MAX_CELL_BYTES)
    budget.close(
      `<p class="notice">Cell ${cells + 1} is larger than ${size}: it and the cells after it are not shown here.</p>`,
    )
    budget.cut = true
    return
  }
  if (stop === 'cells' || stop === 'bytes') {
    const what =
      stop === 'cells'
        ? `the first ${MAX_CELLS.toLocaleString('en')} cells`
        : `the cells of its first ${formatSize(MAX_NOTEBOOK_BYTES)}`
    budget.close(
      `<p class="notice">This notebook is larger than a frame shows: these are ${what}.</p>`,
    )
    budget.cut = true
    return
  }
  if (cells > 0) {
    budget.close(
      `<p class="notice">The notebook could not be read past cell ${cells}: ${escapeHtml(stop.error)}</p>`,
    )
    return
  }
  budget.close(
    `<p class="notice">This file is not a notebook that can be shown (${escapeHtml(stop.error)}); its beginning:</p><pre>${escapeHtml(head)}</pre>`,
  )
}

/** The language its code cells are highlighted in, from the notebook's metadata. */
export function languageOf(metadata: unknown): string | null {
  const m = metadata as {
    language_info?: { name?: unknown }
    kernelspec?: { language?: unknown }
  } | null
  const name = m?.language_info?.name ?? m?.kernelspec?.language
  return typeof name === 'string' ? name.toLowerCase() : null
}

const HEAD_CHARS = 4096

function textOf(chunk: Uint8Array | string, decoder: TextDecoder): string {
  return typeof chunk === 'string'
    ? chunk
    : decoder.decode(chunk.subarray(0, HEAD_CHARS), { stream: true })
}
