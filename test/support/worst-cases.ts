// Inputs that once made renderers slow or their output huge, at any size: the property test of
// the renderers draws from them, and `npm run bench:render` times them at the largest size a frame
// renders (5 MiB).

export type WorstCase = {
  name: string
  renderer: string
  ext: string
  make: (size: number) => string
}

const fill = (unit: string, size: number) =>
  unit.repeat(Math.max(1, Math.ceil(size / unit.length))).slice(0, size)

export const WORST_CASES: WorstCase[] = [
  {
    name: 'JSON: wide array of small objects',
    renderer: 'json',
    ext: 'json',
    make: (size) => `[${'{"a":1},'.repeat(Math.max(0, Math.floor((size - 9) / 8)))}{"a":1}]`,
  },
  {
    name: 'JSON: deep nesting',
    renderer: 'json',
    ext: 'json',
    make: (size) => '['.repeat(size >> 1) + ']'.repeat(size >> 1),
  },
  {
    name: 'JSON: one long string of quotes',
    renderer: 'json',
    ext: 'json',
    make: (size) => JSON.stringify(fill('"<&', size)),
  },
  {
    name: 'code: many empty lines',
    renderer: 'code',
    ext: 'py',
    make: (size) => '\n'.repeat(size),
  },
  {
    name: 'code: one huge line',
    renderer: 'code',
    ext: 'js',
    make: (size) => fill('a="<&>";', size),
  },
  {
    name: 'code: ordinary JavaScript',
    renderer: 'code',
    ext: 'js',
    make: (size) => fill('function f(a, b) {\n  return a + b * 2 // sum\n}\n', size),
  },
  { name: 'code: short tokens', renderer: 'code', ext: 'json', make: (size) => fill('1,', size) },
  { name: 'CSV: one wide row', renderer: 'csv', ext: 'csv', make: (size) => fill('"a",', size) },
  {
    name: 'CSV: many short rows',
    renderer: 'csv',
    ext: 'csv',
    make: (size) => fill('a,b,c\n', size),
  },
  {
    name: 'CSV: escaped cells',
    renderer: 'csv',
    ext: 'csv',
    make: (size) => fill('"<>","&""",\n', size),
  },
  {
    name: 'Markdown: unmatched emphasis',
    renderer: 'markdown',
    ext: 'md',
    make: (size) => fill('*a', size),
  },
  {
    name: 'Markdown: nested quotes',
    renderer: 'markdown',
    ext: 'md',
    make: (size) => fill('>', size),
  },
  {
    name: 'Markdown: nested lists',
    renderer: 'markdown',
    ext: 'md',
    make: (size) =>
      fill(Array.from({ length: 40 }, (_, i) => `${'  '.repeat(i)}- item`).join('\n') + '\n', size),
  },
  {
    name: 'Markdown: table cells',
    renderer: 'markdown',
    ext: 'md',
    make: (size) => '|a|b|\n|-|-|\n' + fill('|"x"|&|\n', size),
  },
  {
    name: 'Markdown: ordinary report',
    renderer: 'markdown',
    ext: 'md',
    make: (size) =>
      fill(
        '# Title\n\nSome *emphasis* and **strong** text with `code` and [a link](https://x.example).\n\n- item\n- item\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n',
        size,
      ),
  },
  {
    name: 'Markdown: escaped markers',
    renderer: 'markdown',
    ext: 'md',
    make: (size) => fill('\\*a\\_b', size),
  },
  {
    name: 'Markdown: backslash before live markers',
    renderer: 'markdown',
    ext: 'md',
    make: (size) => fill('\\\\*a', size),
  },
  {
    name: 'Markdown: quotes of lists',
    renderer: 'markdown',
    ext: 'md',
    make: (size) => fill('> - '.repeat(50) + 'x\n', size),
  },
  {
    name: 'Markdown: links and brackets',
    renderer: 'markdown',
    ext: 'md',
    make: (size) => fill('[a](', size),
  },
  {
    name: 'Markdown: emphasis runs',
    renderer: 'markdown',
    ext: 'md',
    make: (size) => fill('**_~~a', size),
  },
  // Display math that never closes: each line looks for its closing `$$` (render/math.ts).
  {
    name: 'Markdown: lines opening display math',
    renderer: 'markdown',
    ext: 'md',
    make: (size) => fill('$$\\\n', size),
  },
  {
    name: 'Markdown: inline display math',
    renderer: 'markdown',
    ext: 'md',
    make: (size) => fill('$$ a $$b ', size),
  },
  { name: 'text: quotes to escape', renderer: 'text', ext: 'txt', make: (size) => fill('"', size) },
  { name: 'text: wide characters', renderer: 'text', ext: 'txt', make: (size) => fill('漢', size) },
]

/** Pairs of versions costly to compare, each side within the diff page's 20,000 lines and 1 MiB. */
export type DiffWorstCase = { name: string; make: () => [string, string] }

const lines = (count: number, line: (i: number) => string) =>
  Array.from({ length: count }, (_, i) => line(i)).join('\n')
const sentence = (count: number, word: (k: number) => string) =>
  Array.from({ length: count }, (_, k) => word(k)).join(' ')

export const DIFF_WORST_CASES: DiffWorstCase[] = [
  {
    name: 'diff: every line changed near its end',
    make: () => [
      lines(20_000, () => 'p'.repeat(45) + 'abc'),
      lines(20_000, () => 'p'.repeat(45) + 'acb'),
    ],
  },
  {
    name: 'diff: nothing in common',
    make: () => [lines(20_000, (i) => `old line ${i}`), lines(20_000, (i) => `new line ${i}`)],
  },
  {
    name: 'diff: one line repeated, another every 20th',
    make: () => [lines(20_000, () => 'a'), lines(20_000, (i) => (i % 20 === 19 ? 'b' : 'a'))],
  },
  {
    name: 'diff: 500 long lines, each changed at its end',
    make: () => [
      lines(500, (i) => `${i}`.padEnd(2040, '.') + 'abc'),
      lines(500, (i) => `${i}`.padEnd(2040, '.') + 'acb'),
    ],
  },
  {
    // The words' search: each pair differs by 40 words and spaces among 800, in a repeating text
    // whose every token matches many others.
    name: 'diff: 250 lines of 2 KiB, every 20th word changed (shown)',
    make: () => [
      lines(250, (i) => sentence(400, (k) => `word${(i + k) % 7}`)),
      lines(250, (i) => sentence(400, (k) => (k % 20 === 7 ? 'other' : `word${(i + k) % 7}`))),
    ],
  },
  {
    // A minified document on one line: one pair of lines, each of 1 MiB.
    name: 'diff: one line of 1 MiB, words changed throughout (shown)',
    make: () => [
      sentence(340_000, (k) => `w${k % 5}`),
      sentence(340_000, (k) => (k % 20_000 === 10_000 ? 'x' : `w${k % 5}`)),
    ],
  },
  {
    // One word of 1 MiB: setting aside what both share stops at a word's edge, never far inside.
    name: 'diff: one word of 1 MiB, a letter changed in its middle (shown)',
    make: () => ['a'.repeat(2 ** 20 - 1), 'a'.repeat(2 ** 19) + 'b' + 'a'.repeat(2 ** 19 - 2)],
  },
  {
    // For the rendered view of an HTML canvas, read unit by unit: as many units as 1 MiB holds.
    name: 'diff: 1 MiB of tags on one line, each changed',
    make: () => ['<i>'.repeat(349_000), '<b>'.repeat(349_000)],
  },
  {
    name: 'diff: a page of 10,000 paragraphs, a word changed in every 50th (shown)',
    make: () => [
      lines(10_000, (i) => `<p class="p">Paragraph ${i} says &amp; means <b>this</b>.</p>`),
      lines(10_000, (i) =>
        i % 50 === 25
          ? `<p class="p">Paragraph ${i} says &amp; means <b>that</b>.</p>`
          : `<p class="p">Paragraph ${i} says &amp; means <b>this</b>.</p>`,
      ),
    ],
  },
  {
    name: 'diff: 182 lines changed, spread out (shown)',
    make: () => [
      lines(20_000, (i) => `line ${i}`),
      lines(20_000, (i) => (i % 110 === 55 ? `changed ${i}` : `line ${i}`)),
    ],
  },
]

// The largest notebooks a frame is asked to show (render/notebook.ts streams them in): more cells
// than it shows, 50 MiB of image outputs, one output of 50 MiB, and Markdown cells full of math.
// `npm run bench:render` times each as it streams in from storage.
const cellsOf = (cells: unknown[]) =>
  JSON.stringify({ cells, metadata: { language_info: { name: 'python' } }, nbformat: 4 })
const codeCell = (i: number, outputs: unknown[]) => ({
  cell_type: 'code',
  execution_count: i,
  metadata: {},
  source: [`for row in rows[${i}:]:\n`, `    total += row.value * ${i}  # a comment\n`],
  outputs,
})
const png = (bytes: number) => ({
  output_type: 'display_data',
  data: { 'image/png': 'A'.repeat(bytes) },
})

export const NOTEBOOK_CASES: { name: string; make: () => string }[] = [
  {
    name: 'notebook: 6,000 code cells with output',
    make: () =>
      cellsOf(
        Array.from({ length: 6000 }, (_, i) =>
          codeCell(i, [
            { output_type: 'stream', name: 'stdout', text: [`${i} rows\n`.repeat(10)] },
          ]),
        ),
      ),
  },
  {
    name: 'notebook: 50 MiB of PNG outputs',
    make: () => cellsOf(Array.from({ length: 100 }, (_, i) => codeCell(i, [png(512 * 1024)]))),
  },
  { name: 'notebook: one 50 MiB output', make: () => cellsOf([codeCell(1, [png(50 * 2 ** 20)])]) },
  {
    name: 'notebook: 5,000 Markdown cells with math',
    make: () =>
      cellsOf(
        Array.from({ length: 5000 }, (_, i) => ({
          cell_type: 'markdown',
          metadata: {},
          source: `## Step ${i}\n\nWith $x_${i}^2$ and **bold** text, a [link](https://example.com).\n`,
        })),
      ),
  },
]
