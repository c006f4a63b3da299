import { Marked, type Tokens } from 'marked'
import { highlight } from './code'
import { escapeHtml } from './escape'

// GitHub-flavoured Markdown (tables, task lists, strikethrough, autolinks) rendered on the server.
// Raw HTML is shown as text, never interpreted, and only http(s), mailto and relative links and
// images survive; the frame runs no script either way.

const SAFE_URL = /^(https?:|mailto:|#|\/(?!\/)|\.{0,2}\/|[^:]*$)/i

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    html({ text }: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(text)
    },
    code({ text, lang }: Tokens.Code) {
      const language = (lang ?? '').trim().split(/\s+/)[0]
      return `<pre><code class="hljs">${highlight(text, language)}</code></pre>\n`
    },
    link(this: any, { href, title, tokens }: Tokens.Link) {
      const text = this.parser.parseInline(tokens)
      if (!SAFE_URL.test(href.trim())) return text
      const titleAttr = title ? ` title="${escapeHtml(title)}"` : ''
      return `<a href="${escapeHtml(href)}"${titleAttr} target="_blank" rel="noopener noreferrer nofollow">${text}</a>`
    },
    image({ href, title, text }: Tokens.Image) {
      if (!SAFE_URL.test(href.trim())) return escapeHtml(text)
      const titleAttr = title ? ` title="${escapeHtml(title)}"` : ''
      return `<img src="${escapeHtml(href)}" alt="${escapeHtml(text)}"${titleAttr} loading="lazy">`
    },
  },
})

export function renderMarkdown(source: string): string {
  return `<article class="markdown">${marked.parse(source, { async: false }) as string}</article>`
}
