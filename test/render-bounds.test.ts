import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { renderTextBody as renderBody } from '../src/render/body'
import { MAX_FRAME_HTML_BYTES } from '../src/render/budget'
import { WORST_CASES } from './support/worst-cases'
import { runs } from './support/runs'

const renderTextBody = async (...args: Parameters<typeof renderBody>) =>
  (await renderBody(...args)).html

// Rendered output is bounded whatever the input: generated worst cases of every text renderer, at
// sizes up to the 5 MiB a frame renders, give at most 8 MiB of HTML, and say when they were cut.
// (Their CPU time is measured by `npm run bench:render`, not asserted here.)

const MAX_INPUT = 5 * 1024 * 1024
const bytes = (html: string) => new TextEncoder().encode(html).byteLength
const CUT_NOTICE = 'Too large to show in full; this is the beginning.'

// Pieces that are costly for some renderer, to be mixed at random into one input.
const PIECES = [
  '\n',
  '"',
  '<',
  '&',
  '*',
  '_',
  '>',
  '[',
  '](',
  '|',
  '`',
  '{"a":',
  '[',
  ']',
  '}',
  ',',
  '- ',
  '  ',
  '#',
  '\\',
  '漢',
  '😀',
  '\r\n',
  '\t',
  'a',
]

describe('renderers', () => {
  it('keep every worst case within 8 MiB at any size', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...WORST_CASES),
        fc.integer({ min: 0, max: MAX_INPUT }),
        async (worst, size) => {
          const html = await renderTextBody(
            worst.renderer,
            worst.ext,
            worst.make(size),
            '#download',
          )
          expect(bytes(html), `${worst.name} at ${size}`).toBeLessThanOrEqual(MAX_FRAME_HTML_BYTES)
        },
      ),
      { numRuns: runs(40) },
    )
  })

  it('keep generated mixtures within 8 MiB, for every renderer', async () => {
    const renderers = [
      ['markdown', 'md'],
      ['code', 'js'],
      ['code', 'py'],
      ['json', 'json'],
      ['csv', 'csv'],
      ['csv', 'tsv'],
      ['text', 'txt'],
    ] as const
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...renderers),
        fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: MAX_INPUT }),
        async ([renderer, ext], pieces, size) => {
          const unit = pieces.join('')
          const input = unit.repeat(Math.ceil(size / unit.length)).slice(0, size)
          const html = await renderTextBody(renderer, ext, input, '#download')
          expect(bytes(html), `${renderer} of ${JSON.stringify(unit)}`).toBeLessThanOrEqual(
            MAX_FRAME_HTML_BYTES,
          )
        },
      ),
      { numRuns: runs(40) },
    )
  })

  it('say when they cut, with a download link, and not otherwise', async () => {
    const many = await renderTextBody('code', 'py', '\n'.repeat(MAX_INPUT), '/raw?dl=1')
    expect(many).toContain(CUT_NOTICE)
    expect(many).toContain('href="/raw?dl=1"')
    const rows = many.match(/<tr>/g)!.length
    expect(rows).toBeGreaterThan(50_000)
    expect(many.endsWith('</tbody></table>')).toBe(true)
    const small = await renderTextBody('code', 'py', 'print(1)\n', '/raw?dl=1')
    expect(small).not.toContain(CUT_NOTICE)
    expect(small).toContain('hljs-built_in')
  })

  it('cut JSON keeps its structure closed, and a deep one is shown as text', async () => {
    const wide = await renderTextBody('json', 'json', WORST_CASES[0].make(MAX_INPUT), '#')
    expect(wide).toContain(CUT_NOTICE)
    const opened = wide.match(/<details/g)!.length
    expect(wide.match(/<\/details>/g)!.length).toBe(opened)
    const deep = await renderTextBody('json', 'json', '['.repeat(5000) + ']'.repeat(5000), '#')
    expect(deep).toContain('Nested too deeply to show as a tree; shown as text.')
  })

  it('markdown past its input limit shows the beginning, rendered', async () => {
    const report = '## Section\n\nSome *words*.\n\n'.repeat(20_000)
    const html = await renderTextBody('markdown', 'md', report, '#')
    expect(html).toContain(CUT_NOTICE)
    expect(html).toContain('<h2>Section</h2>')
    expect(html).toContain('<em>words</em>')
    // A paragraph of unmatched emphasis is shown as typed (fenced), not as a quadratic parse.
    const stars = await renderTextBody('markdown', 'md', '*a'.repeat(10_000), '#')
    expect(stars).toContain('<pre><code class="hljs">*a*a')
    // Ordinary text keeps its escapes, code spans and links untouched.
    const plain = await renderTextBody(
      'markdown',
      'md',
      'Use `my_var` and \\*literal\\* stars, see https://example.com/a_b_c.\n',
      '#',
    )
    expect(plain).toContain('<code>my_var</code>')
    expect(plain).toContain('*literal* stars')
    expect(plain).toContain('href="https://example.com/a_b_c"')
    // Lists and quotes nested past eight levels keep the deeper markers as text.
    const nested = await renderTextBody('markdown', 'md', '> - '.repeat(20) + 'x\n', '#')
    expect(nested.match(/<blockquote>|<ul>/g)!.length).toBe(8)
  })

  it('CSV cells keep RFC 4180 quoting', async () => {
    const html = await renderTextBody(
      'csv',
      'csv',
      'name,note\n"Doe, Jane","said ""hi"""\nx,\n',
      '#',
    )
    expect(html).toContain('<th>name</th><th>note</th>')
    expect(html).toContain('<td>Doe, Jane</td><td>said &quot;hi&quot;</td>')
    expect(html).toContain('<td>x</td><td></td>')
  })
})
