import { describe, expect, it } from 'vitest'
import { locateQuote, quoteOf } from '../assets/quote'

// Where a comment's quote is shown in a version's text (docs/web.md).

const v1 = 'The plan. Ship it on Friday, then rest. Questions go to Ada.'

describe('locating a quote', () => {
  it('finds a quote made on this text where it was made', () => {
    const start = v1.indexOf('on Friday')
    const quote = quoteOf(v1, start, start + 'on Friday'.length, 2000)!
    expect(quote).toEqual({
      exact: 'on Friday',
      prefix: 'The plan. Ship it ',
      suffix: ', then rest. Questions go to Ada',
    })
    expect(locateQuote(v1, quote)).toEqual({ kind: 'found', start, end: start + 9 })
  })

  it('finds a quote that survives a new version, though the text around it changed', () => {
    const quote = { exact: 'on Friday', prefix: 'The plan. Ship it ', suffix: ', then rest.' }
    const v2 = '# New plan\n\nWe ship  on Friday\nat noon.'
    const start = v2.indexOf('on Friday')
    expect(locateQuote(v2, quote)).toEqual({ kind: 'found', start, end: start + 9 })
  })

  it('says a quote is missing when the new version no longer has it', () => {
    const quote = { exact: 'on Friday', prefix: 'Ship it ', suffix: ', then' }
    expect(locateQuote('Ship it on Monday, then rest.', quote)).toEqual({ kind: 'missing' })
    expect(locateQuote('', quote)).toEqual({ kind: 'missing' })
  })

  it('says a quote is ambiguous when it now occurs twice, context and all', () => {
    const quote = { exact: 'on Friday', prefix: 'Ship it ', suffix: ', then' }
    const twice = 'Ship it on Friday, then rest. Ship it on Friday, then rest.'
    expect(locateQuote(twice, quote)).toEqual({ kind: 'ambiguous', count: 2 })
    // Twice, and the context matches neither: not shown in place either.
    expect(locateQuote('Go on Friday. Stay on Friday.', quote)).toEqual({
      kind: 'ambiguous',
      count: 2,
    })
  })

  it('tells apart two places of the same words by their prefix or their suffix', () => {
    const text = 'Monday: review. Tuesday: review. Wednesday: rest.'
    const second = text.indexOf('review', 10)
    expect(locateQuote(text, { exact: 'review', prefix: 'Tuesday: ' })).toEqual({
      kind: 'found',
      start: second,
      end: second + 6,
    })
    const first = text.indexOf('review')
    expect(locateQuote(text, { exact: 'review', suffix: '. Tuesday' })).toEqual({
      kind: 'found',
      start: first,
      end: first + 6,
    })
  })

  it('compares whitespace as one space, and maps the place back to the text itself', () => {
    const text = 'Ship it\n   on\tFriday.'
    const located = locateQuote(text, { exact: 'it on Friday' })
    expect(located).toEqual({ kind: 'found', start: 5, end: text.length - 1 })
  })

  it('makes no quote of whitespace, and cuts a long selection to the limit', () => {
    expect(quoteOf('a   b', 1, 4, 100)).toBeNull()
    expect(quoteOf('x'.repeat(50), 0, 50, 10)!.exact).toBe('x'.repeat(10))
  })
})
