import { raw } from 'hono/html'
import { DOC_INDEX } from './contents'
import { Layout, type User } from '../pages/layout'

/**
 * A page of the documentation, rendered from its Markdown (web/docs/pages.ts), with the list of
 * every page beside it (above it on a phone) and the API reference among them.
 */
export function DocPage(props: { page: string; title: string; html: string; user?: User | null }) {
  return (
    <Layout title={props.title} user={props.user}>
      <div class="docs">
        <DocsNav current={props.page} />
        <div class="docs-body doc">{raw(props.html)}</div>
      </div>
    </Layout>
  )
}

/** The documentation's pages, and the API reference. */
export function DocsNav(props: { current?: string }) {
  return (
    <nav class="toc" id="contents" aria-label="Documentation">
      <p class="toc-title">Documentation</p>
      <ul>
        {DOC_INDEX.map(({ page, title }) => (
          <li>
            <a href={`/docs/${page}`} aria-current={page === props.current ? 'page' : undefined}>
              {title}
            </a>
          </li>
        ))}
        <li>
          <a href="/docs" aria-current={props.current === undefined ? 'page' : undefined}>
            API reference
          </a>
        </li>
      </ul>
    </nav>
  )
}
