import { describe, expect, it } from 'vitest'
import { safeFileName } from '../../cli/transfer'

// The names `svc download` saves under: what a title can hide must not reach the file system.

describe('safeFileName', () => {
  it('drops bidirectional overrides, isolates and zero-width characters', () => {
    // Displayed as "invoiceexe.pdf" when the override survives; Chromium saves invoice_fdp.exe.
    expect(safeFileName('invoice\u202Efdp', 'exe')).toBe('invoicefdp.exe')
    expect(safeFileName('a\u2066b\u2069c\u200Bd\u200Fe\u061Cf\uFEFF', 'txt')).toBe('abcdef.txt')
    // Soft hyphen, Mongolian vowel separator, line and paragraph separators, tags.
    expect(safeFileName('a\u00ADb\u180Ec\u2028d\u2029e\u{E0041}f\uFFF9', 'txt')).toBe('abcdef.txt')
  })

  it('drops C0 and C1 controls and replaces path and reserved characters', () => {
    expect(safeFileName('a\u0000b\u001bc\u0085d', 'txt')).toBe('abcd.txt')
    expect(safeFileName('../../etc/passwd', 'txt')).toBe('__.._etc_passwd.txt')
    expect(safeFileName('a\\b:c*d?e"f<g>h|i', 'md')).toBe('a_b_c_d_e_f_g_h_i.md')
    expect(safeFileName('.hidden', 'txt')).toBe('_hidden.txt')
  })

  it('keeps the extension when a long title is cut, within 200 UTF-8 bytes', () => {
    const name = safeFileName('x'.repeat(200), 'html')
    expect(name).toBe('x'.repeat(195) + '.html')
    const wide = safeFileName('é'.repeat(150), 'pdf')
    expect(wide.endsWith('.pdf')).toBe(true)
    expect(Buffer.byteLength(wide)).toBeLessThanOrEqual(200)
    expect(wide).toBe('é'.repeat(98) + '.pdf')
    // Never half a character: an emoji is kept whole or not at all.
    const emoji = safeFileName('😀'.repeat(60), 'txt')
    expect(emoji).toBe('😀'.repeat(49) + '.txt')
  })

  it('does not repeat an extension the title already has, and never answers an empty name', () => {
    expect(safeFileName('report.HTML', 'html')).toBe('report.html')
    expect(safeFileName('\u202E', 'bin')).toBe('download.bin')
    expect(safeFileName('x\ud800y', 'txt')).toBe('x_y.txt')
  })
})
