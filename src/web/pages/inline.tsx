import type { Child } from 'hono/jsx'

// The API's descriptions are written in a little Markdown: `code`, **bold** and [links](url).
// This renders that much and nothing else; every piece of text goes through JSX, which escapes
// it, and a link goes only to this site or to http(s).

const TOKEN = /`([^`]+)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\(([^)\s]+)\)/g
const SAFE_HREF = /^(https?:\/\/|\/(?!\/)|#)/

export function Inline({ text }: { text: string }) {
  const out: Child[] = []
  let at = 0
  for (const match of text.matchAll(TOKEN)) {
    if (match.index > at) out.push(text.slice(at, match.index))
    const [whole, code, bold, label, href] = match
    if (code !== undefined) out.push(<code>{code}</code>)
    else if (bold !== undefined) out.push(<strong>{bold}</strong>)
    else if (SAFE_HREF.test(href)) out.push(<a href={href}>{label}</a>)
    else out.push(whole)
    at = match.index + whole.length
  }
  if (at < text.length) out.push(text.slice(at))
  return <>{out}</>
}
