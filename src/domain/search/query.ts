import { AppError } from '../../lib/errors'
import { LONE_SURROGATE } from '../../lib/content-types'
import { cjkWords } from './cjk'

// What a person types into a search box, as an FTS5 query that can only mean what they meant.
// FTS5's own syntax (AND, OR, NOT, NEAR, columns, ^, parentheses) is never passed through: the
// query is read into words, "phrases" and prefix* terms, each written back as a quoted string, so
// no text typed can be an operator, name a column or break the expression. Every term is required
// (AND). A query that holds nothing to search for is refused with its reason.

export const MAX_QUERY_LENGTH = 200
export const MAX_TERMS = 16

export type Term = { words: string[]; prefix: boolean }

// Letters, marks and digits make words, as the index's tokenizer (unicode61) reads them; any other
// character separates them.
const WORD = /[\p{L}\p{M}\p{N}]+/gu

/** The terms of `q`, or the reason it is not a query (an AppError naming `field`). */
export function parseQuery(q: string, field = 'q'): Term[] {
  const bad = (reason: string) => new AppError('invalid_request', `${field}: ${reason}`)
  if (q.length > MAX_QUERY_LENGTH) {
    throw bad(`is ${q.length} characters, over the limit of ${MAX_QUERY_LENGTH}`)
  }
  if (/\p{Cc}/u.test(q.replace(/[\t\n\r]/g, ' '))) throw bad('holds a control character')
  if (q.search(LONE_SURROGATE) !== -1) throw bad('holds half of a UTF-16 surrogate pair')
  if ((q.match(/"/g)?.length ?? 0) % 2 === 1) throw bad('a quote is opened and never closed')
  if (q.trim() === '') throw bad('is empty; give one or more words to search for')
  const terms: Term[] = []
  // Quoted phrases and the bare pieces between them, in order.
  for (const [, phrase, star, bare] of q.matchAll(/"([^"]*)"(\*?)|([^\s"]+)/g)) {
    const text = phrase ?? bare
    const prefix = phrase === undefined ? text.endsWith('*') : star === '*'
    const words = (text.match(WORD) ?? []).flatMap(cjkWords)
    if (words.length > 0) terms.push({ words, prefix })
  }
  if (terms.length === 0) {
    throw bad('has no letters or digits to search for; give one or more words')
  }
  if (terms.length > MAX_TERMS)
    throw bad(`has ${terms.length} terms, over the limit of ${MAX_TERMS}`)
  return terms
}

/**
 * The FTS5 expression of `terms` over a canvas's title and text, within one workspace: each term a
 * quoted string (a prefix term's last word ends in `*`), all required.
 */
export function matchExpression(workspaceId: string, terms: Term[]): string {
  const wanted = terms
    .map((t) => `"${t.words.join(' ').replace(/"/g, '""')}"${t.prefix ? '*' : ''}`)
    .join(' AND ')
  return `workspace_id : ${quoted(workspaceId)} AND {title body} : (${wanted})`
}

const quoted = (text: string) => `"${text.replace(/"/g, '""')}"`
