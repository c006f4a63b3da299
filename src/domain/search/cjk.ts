// The index's tokenizer (unicode61) reads a run of letters as one word, and Chinese, Japanese and
// Korean write words without spaces between them: "我们的季度报告" is one token, so "季度" inside
// it was never found. Each such character is made a word of its own: in the text indexed, by a
// zero-width space between it and its neighbours (a separator to the tokenizer, nothing to a
// reader), and in a query, by searching a run of them as the phrase of its characters, which
// finds the word wherever it stands.

const CJK_CHARACTER = '[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}]'
const WORD_CHARACTER = '[\\p{L}\\p{M}\\p{N}]'
const JOINER = '\u200b'

// Made on first use: classes of whole scripts are costly to build, and only indexing and
// searching need them.
let patterns: { cjk: RegExp; boundary: RegExp } | undefined
const cjkPatterns = () =>
  (patterns ??= {
    cjk: new RegExp(CJK_CHARACTER, 'u'),
    // Where a CJK character meets another letter or digit, on either side.
    boundary: new RegExp(
      `(?<=${WORD_CHARACTER})(?=${CJK_CHARACTER})|(?<=${CJK_CHARACTER})(?=${WORD_CHARACTER})`,
      'gu',
    ),
  })

/** `text` with a zero-width space on either side of each CJK character within a word. */
export function spacedCjk(text: string): string {
  const { cjk, boundary } = cjkPatterns()
  return cjk.test(text) ? text.replace(boundary, JOINER) : text
}

/** A query's word as the index holds it: its CJK characters each a word of their own. */
export function cjkWords(word: string): string[] {
  return cjkPatterns().cjk.test(word) ? spacedCjk(word).split(JOINER) : [word]
}

/** Text as a reader sees it again: without the joiners the index put in. */
export const unspaced = (text: string) => text.replaceAll(JOINER, '')
