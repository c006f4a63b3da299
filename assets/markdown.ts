// A comment's Markdown, made into DOM nodes for the page: paragraphs, line breaks, lists, quotes,
// code blocks, and inline emphasis, code and links. Built with createElement and text nodes only
// (never HTML from the text), so what someone wrote is shown, never run; links go to http(s) and
// mailto addresses only, marked as user content. One pass over the lines and one over each
// line's characters: its cost is linear in the text, which the API caps.

const LINK_REL = 'noopener noreferrer nofollow ugc'
const SAFE_URL = /^(https?:\/\/|mailto:)/i

/** The nodes of `text` rendered as Markdown, to append to a container. */
export function markdown(text: string): Node[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n')
  const out: Node[] = []
  let i = 0
  while (i < lines.length) {
    const line = lines[i]
    if (/^\s*```/.test(line)) {
      const code: string[] = []
      i++
      while (i < lines.length && !/^\s*```/.test(lines[i])) code.push(lines[i++])
      i++
      const pre = el('pre')
      pre.appendChild(el('code', code.join('\n')))
      out.push(pre)
    } else if (/^\s*>/.test(line)) {
      const quoted: string[] = []
      while (i < lines.length && /^\s*>/.test(lines[i]))
        quoted.push(lines[i++].replace(/^\s*> ?/, ''))
      const block = el('blockquote')
      block.append(...paragraphs(quoted))
      out.push(block)
    } else if (/^\s*([-*+]|\d{1,9}[.)])\s+/.test(line)) {
      const ordered = /^\s*\d/.test(line)
      const list = el(ordered ? 'ol' : 'ul')
      while (i < lines.length && /^\s*([-*+]|\d{1,9}[.)])\s+/.test(lines[i])) {
        const item = el('li')
        item.append(...inline(lines[i++].replace(/^\s*([-*+]|\d{1,9}[.)])\s+/, '')))
        list.appendChild(item)
      }
      out.push(list)
    } else if (line.trim() === '') {
      i++
    } else {
      const para: string[] = []
      while (
        i < lines.length &&
        lines[i].trim() !== '' &&
        !/^\s*(```|>|[-*+]\s|\d{1,9}[.)]\s)/.test(lines[i])
      ) {
        para.push(lines[i++])
      }
      if (para.length === 0) para.push(lines[i++])
      out.push(...paragraphs([para.join('\n')]))
    }
  }
  return out
}

function paragraphs(lines: string[]): Node[] {
  return lines
    .join('\n')
    .split(/\n\s*\n/)
    .filter((p) => p.trim() !== '')
    .map((p) => {
      const para = el('p')
      p.split('\n').forEach((line, n) => {
        if (n > 0) para.appendChild(document.createElement('br'))
        para.append(...inline(line))
      })
      return para
    })
}

/** Inline Markdown of one line: `code`, **strong**, *em* / _em_, [text](url) and bare URLs. */
function inline(text: string): Node[] {
  const out: Node[] = []
  let plain = ''
  const flush = () => {
    if (plain) out.push(document.createTextNode(plain))
    plain = ''
  }
  let i = 0
  while (i < text.length) {
    const rest = text.slice(i, i + 2)
    const ch = text[i]
    if (ch === '`') {
      const end = text.indexOf('`', i + 1)
      if (end > i + 1) {
        flush()
        out.push(el('code', text.slice(i + 1, end)))
        i = end + 1
        continue
      }
    }
    if (rest === '**' || rest === '__') {
      const end = text.indexOf(rest, i + 2)
      if (end > i + 2) {
        flush()
        const strong = el('strong')
        strong.append(...inline(text.slice(i + 2, end)))
        out.push(strong)
        i = end + 2
        continue
      }
    }
    if ((ch === '*' || ch === '_') && text[i + 1] !== ' ') {
      const end = text.indexOf(ch, i + 1)
      if (end > i + 1 && text[end - 1] !== ' ') {
        flush()
        out.push(el('em', text.slice(i + 1, end)))
        i = end + 1
        continue
      }
    }
    if (ch === '[') {
      const link = /^\[([^\]\n]{1,500})\]\(([^)\s]{1,2000})\)/.exec(text.slice(i, i + 2600))
      if (link) {
        flush()
        out.push(anchor(link[1], link[2]))
        i += link[0].length
        continue
      }
    }
    if ((ch === 'h' || ch === 'H') && /^https?:\/\//i.test(text.slice(i, i + 8))) {
      const url = /^https?:\/\/[^\s<>()]{1,2000}/i
        .exec(text.slice(i, i + 2010))![0]
        .replace(/[.,;:!?]+$/, '')
      flush()
      out.push(anchor(url, url))
      i += url.length
      continue
    }
    plain += ch
    i++
  }
  flush()
  return out
}

/** A link when its address is a safe one; else its text, as written. */
function anchor(label: string, href: string): Node {
  if (!SAFE_URL.test(href)) return document.createTextNode(`[${label}](${href})`)
  const a = el('a', label) as HTMLAnchorElement
  a.href = href
  a.rel = LINK_REL
  a.target = '_blank'
  return a
}

function el(tag: string, text?: string): HTMLElement {
  const node = document.createElement(tag)
  if (text !== undefined) node.textContent = text
  return node
}
