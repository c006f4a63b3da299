import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonText, table, visible } from '../../cli/output'
import { wild } from '../support/hostile-values'

// What the CLI prints: no control or bidirectional character from a server reaches the terminal,
// and JSON stays JSON that parses back to what was said.

const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/
const text = fc.oneof(
  wild,
  fc.string({ unit: 'binary' }),
  fc.constantFrom('\u001b]0;PWNED\u0007', '\u009b2J', 'a\u202eb', '\u2066x\u2069', '\u0085'),
)

describe('visible', () => {
  it('leaves no character a terminal acts on, and changes nothing else', () => {
    fc.assert(
      fc.property(text, (t) => {
        const shown = visible(t)
        expect(shown).not.toMatch(UNSAFE)
        const each = t
          .split('')
          .map((c) => (UNSAFE.test(c) ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c))
        expect(shown).toBe(each.join(''))
        expect(visible(shown)).toBe(shown)
      }),
      { numRuns: 2000 },
    )
    expect(visible('\u001b[2J\u009b31m\u202eevil')).toBe('\\u001b[2J\\u009b31m\\u202eevil')
  })
})

describe('jsonText', () => {
  it('is JSON that parses back to the same value, with none of them raw', () => {
    const value = fc
      .jsonValue()
      .chain((v) => fc.record({ v: fc.constant(v), t: fc.array(text, { maxLength: 3 }) }))
    fc.assert(
      fc.property(value, fc.boolean(), (v, pretty) => {
        const out = jsonText(v, pretty ? 2 : undefined)
        expect(out.replace(/\n/g, '')).not.toMatch(UNSAFE)
        expect(JSON.parse(out)).toStrictEqual(JSON.parse(JSON.stringify(v)))
      }),
      { numRuns: 1000 },
    )
  })
})

describe('table', () => {
  it('aligns the columns as they print', () => {
    expect(table(['A', 'B'], [['\u001bx', 'y']]).text).toBe('A        B\n\\u001bx  y')
  })
})

describe('the CLI writes to the terminal in one place', () => {
  it('only cli/output.ts writes messages; the rest write content, prompts or the version', () => {
    const root = fileURLToPath(new URL('../../cli/', import.meta.url))
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.ts'),
    )
    const writers = files
      .filter((f) =>
        /process\.std(out|err)\.write|console\./.test(readFileSync(join(root, f), 'utf8')),
      )
      .map((f) => relative(root, join(root, f)))
      .sort()
    // index.ts: the version; main.ts: help text (the CLI's own); prompt.ts: line ends.
    expect(writers).toEqual(['index.ts', 'main.ts', 'output.ts', 'prompt.ts'])
  })
})
