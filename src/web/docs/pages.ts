import { anchorOf } from '../../lib/anchors'
import { HtmlBudget } from '../../render/budget'

// The repository's documentation as the deployment serves it at /docs/<page>: the pages of docs/
// and the README, SECURITY.md and BENCHMARKS.md beside them, copied into the static assets at
// build time (scripts/build-assets.mjs) and rendered here by Canvas's own Markdown renderer. A
// link to another page becomes that page's address here; a link into the source tree, which the
// deployment does not serve, is left as its text.

/** A page's name in its address: docs/<name>.md, or readme, security, benchmarks. */
export const DOC_PAGE = /^[a-z][a-z-]{0,40}$/

const ROOT_PAGES = ['readme', 'security', 'benchmarks']

/** The page's Markdown, from the static assets; null when there is no such page. */
export async function docSource(assets: Fetcher, origin: string, page: string) {
  if (!DOC_PAGE.test(page)) return null
  const res = await assets.fetch(new URL(`/docs/${page}.md`, origin))
  if (!res.ok) {
    await res.body?.cancel()
    return null
  }
  return res.text()
}

/** The page rendered: its links made this deployment's, each heading with its anchor. */
export async function renderDoc(page: string, source: string): Promise<string> {
  const { renderMarkdown } = await import('../../render/markdown')
  const budget = new HtmlBudget()
  renderMarkdown(budget, servedLinks(page, source))
  return (
    withAnchors(budget.toString())
      // A link within the documentation opens in place; one elsewhere in a tab of its own.
      .replace(
        /<a href="((?:\/docs\/|#)[^"]*)" target="_blank" rel="noopener noreferrer nofollow">/g,
        '<a href="$1">',
      )
      // Code and tables scroll sideways in their own box on a phone: reachable by the keyboard.
      .replace(/<(pre|table)>/g, '<$1 tabindex="0">')
  )
}

/** Links and images of a page as this deployment serves them. */
export function servedLinks(page: string, source: string): string {
  const dir = ROOT_PAGES.includes(page) ? '' : 'docs/'
  let fenced = false
  return source
    .split('\n')
    .map((line) => {
      if (/^\s*```/.test(line)) fenced = !fenced
      if (fenced) return line
      return line.replace(/(!?)\[([^\]]*)\]\(([^)\s]+)\)/g, (_, bang, text, target) => {
        const served = servedTarget(dir, target)
        return served === null ? text : `${bang}[${text}](${served})`
      })
    })
    .join('\n')
}

function servedTarget(dir: string, target: string): string | null {
  if (/^(https?:|mailto:|#)/.test(target)) return target
  const [path, hash] = target.split('#')
  const parts: string[] = []
  for (const part of (dir + path).split('/')) {
    if (part === '..') parts.pop()
    else if (part !== '.' && part !== '') parts.push(part)
  }
  const file = parts.join('/')
  const anchor = hash ? `#${hash}` : ''
  const doc = /^docs\/([a-z][a-z-]*)\.md$/.exec(file)
  if (doc) return `/docs/${doc[1]}${anchor}`
  const root = /^(README|SECURITY|BENCHMARKS)\.md$/.exec(file)
  if (root) return `/docs/${root[1].toLowerCase()}${anchor}`
  if (/^docs\/screenshots\/[\w.-]+\.png$/.test(file)) return `/${file}`
  return null
}

/** Each heading's id, as GitHub makes them, so that a page's contents and links reach it. */
function withAnchors(html: string): string {
  const seen = new Map<string, number>()
  return html.replace(/<h([1-6])>([\s\S]*?)<\/h\1>/g, (_, level: string, inner: string) => {
    const base = anchorOf(inner.replace(/<[^>]*>/g, '').replace(/&[a-z#0-9]+;/g, decode))
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    const id = count ? `${base}-${count}` : base
    return `<h${level} id="${id}">${inner}</h${level}>`
  })
}

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
}
const decode = (entity: string) => ENTITIES[entity] ?? ''
