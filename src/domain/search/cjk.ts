// The index's tokenizer (unicode61) reads a run of letters as one word, and Chinese, Japanese and
// Korean write words without spaces between them: "我们的季度报告" is one token, so "季度" inside
// it was never found. Each such character is made a word of its own: in the text indexed, by a
// zero-width space between it and its neighbours (a separator to the tokenizer, nothing to a
// reader), and in a query, by searching a run of them as the phrase of its characters, which
// finds the word wherever it stands.

const CJK_CHARACTER = '[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}]'
const WORD_CHARACTER = '[\\p{L}\\p{M}\\p{N}]'
const CJK = new RegExp(CJK_CHARACTER, 'u')
// Where a CJK character meets another letter or digit, on either side.
const BOUNDARY = new RegExp(
  `(?<=${WORD_CHARACTER})(?=${CJK_CHARACTER})|(?<=${CJK_CHARACTER})(?=${WORD_CHARACTER})`,
  'gu',
)
const JOINER = '\u200b'

/** `text` with a zero-width space on either side of each CJK character within a word. */
export function spacedCjk(text: string): string {
  return CJK.test(text) ? text.replace(BOUNDARY, JOINER) : text
}

/** A query's word as the index holds it: its CJK characters each a word of their own. */
export function cjkWords(word: string): string[] {
  return CJK.test(word) ? spacedCjk(word).split(JOINER) : [word]
}

/** Text as a reader sees it again: without the joiners the index put in. */
export const unspaced = (text: string) => text.replaceAll(JOINER, '')
