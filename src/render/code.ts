import hljs from 'highlight.js/lib/core'
import bash from 'highlight.js/lib/languages/bash'
import c from 'highlight.js/lib/languages/c'
import cpp from 'highlight.js/lib/languages/cpp'
import csharp from 'highlight.js/lib/languages/csharp'
import css from 'highlight.js/lib/languages/css'
import go from 'highlight.js/lib/languages/go'
import ini from 'highlight.js/lib/languages/ini'
import java from 'highlight.js/lib/languages/java'
import javascript from 'highlight.js/lib/languages/javascript'
import json from 'highlight.js/lib/languages/json'
import kotlin from 'highlight.js/lib/languages/kotlin'
import php from 'highlight.js/lib/languages/php'
import python from 'highlight.js/lib/languages/python'
import ruby from 'highlight.js/lib/languages/ruby'
import rust from 'highlight.js/lib/languages/rust'
import sql from 'highlight.js/lib/languages/sql'
import typescript from 'highlight.js/lib/languages/typescript'
import xml from 'highlight.js/lib/languages/xml'
import yaml from 'highlight.js/lib/languages/yaml'
import type { HtmlBudget } from './budget'
import { escapeHtml } from '../lib/escape'
import { writeEscaped } from './plain'

// Server-side highlighting with highlight.js core and only the languages of the code renderer
// (docs/web.md), so the frame needs no script at all.

const LANGUAGES = {
  bash,
  c,
  cpp,
  csharp,
  css,
  go,
  ini,
  java,
  javascript,
  json,
  kotlin,
  php,
  python,
  ruby,
  rust,
  sql,
  typescript,
  xml,
  yaml,
}
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language)

const BY_EXT: Record<string, string> = {
  js: 'javascript',
  mjs: 'javascript',
  jsx: 'javascript',
  ts: 'typescript',
  tsx: 'typescript',
  py: 'python',
  rb: 'ruby',
  go: 'go',
  rs: 'rust',
  java: 'java',
  kt: 'kotlin',
  c: 'c',
  h: 'c',
  cpp: 'cpp',
  cs: 'csharp',
  php: 'php',
  sh: 'bash',
  sql: 'sql',
  css: 'css',
  yaml: 'yaml',
  yml: 'yaml',
  toml: 'ini',
  xml: 'xml',
  json: 'json',
  html: 'xml',
  svg: 'xml',
}

export function languageFor(hint: string): string | null {
  const name = BY_EXT[hint] ?? hint
  return hljs.getLanguage(name) ? name : null
}

/** Highlighted HTML (escaped by highlight.js itself); unknown languages are escaped plain text. */
export function highlight(code: string, hint: string): string {
  const language = languageFor(hint)
  return language
    ? hljs.highlight(code, { language, ignoreIllegals: true }).value
    : escapeHtml(code)
}

// highlight.js's cost grows with the input (BENCHMARKS.md, rendering): beyond this a file is
// shown plain, line-numbered, which costs little whatever its size.
export const HIGHLIGHT_LIMIT = 64 * 1024

/** A code file with line numbers: one row per line, the numbers unselectable. */
export function renderCode(budget: HtmlBudget, code: string, ext: string) {
  const highlighted = code.length <= HIGHLIGHT_LIMIT && languageFor(ext) !== null
  if (!highlighted && languageFor(ext) !== null) {
    budget.add('<p class="notice">Too large to highlight; shown as plain text.</p>')
  }
  budget.add('<table class="code hljs"><tbody>')
  const rowStart = (n: number) => `<tr><td class="ln" data-n="${n}"></td><td class="src">`
  if (highlighted) {
    const lines = splitHighlighted(highlight(code, ext))
    for (let i = 0; i < lines.length; i++) {
      if (!budget.add(`${rowStart(i + 1)}${lines[i] || ' '}</td></tr>`)) break
    }
  } else {
    // Line by line, escaping as it goes: a file of a million empty lines stops at the budget.
    let n = 0
    let at = 0
    do {
      const end = code.indexOf('\n', at)
      const line = code.slice(at, end === -1 ? code.length : end) || ' '
      if (!budget.add(rowStart(++n))) break
      const written = writeEscaped(budget, line)
      budget.close('</td></tr>')
      if (written < line.length || end === -1) break
      at = end + 1
    } while (at < code.length)
  }
  budget.close('</tbody></table>')
}

/** Splits highlighted HTML into lines, closing and reopening spans that cross a line break. */
function splitHighlighted(html: string): string[] {
  const out: string[] = []
  const open: string[] = []
  let line = ''
  for (const part of html.split(/(<span[^>]*>|<\/span>|\n)/)) {
    if (part === '\n') {
      out.push(line + '</span>'.repeat(open.length))
      line = open.join('')
    } else if (part.startsWith('<span')) {
      open.push(part)
      line += part
    } else if (part === '</span>') {
      open.pop()
      line += part
    } else {
      line += part
    }
  }
  if (line || out.length === 0) out.push(line)
  return out
}
