import { describe, expect, it } from 'vitest'
import { call, newAccount } from './support/api'

// The repository's documentation as each deployment serves it at /docs/<page> (README: the docs
// index), rendered by Canvas's own Markdown renderer from the static assets of its release.

describe('the documentation served at /docs/<page>', () => {
  it('renders a page with its contents, headings that links reach, and links made local', async () => {
    const res = await call('/docs/cli')
    expect(res.status).toBe(200)
    expect(res.headers.get('Content-Type')).toMatch(/^text\/html/)
    const html = await res.text()
    expect(html).toContain('<title>The svc CLI')
    expect(html).toContain('<h1 id="the-svc-cli">The <code>svc</code> CLI</h1>')
    // Its contents lead to its headings.
    expect(html).toContain('<a href="#install-and-first-steps">')
    expect(html).toContain('<h2 id="install-and-first-steps">')
    // The list of every page, this one marked.
    expect(html).toContain('<a href="/docs/cli" aria-current="page">')
    expect(html).toContain('<a href="/docs">API reference</a>')
  })

  it('a link to another page is that page here; to the source tree, its text alone', async () => {
    const html = await (await call('/docs/readme')).text()
    expect(html).toContain('<a href="/docs/deploy">docs/deploy.md</a>')
    expect(html).toContain('<a href="/docs/security">SECURITY.md</a>')
    expect(html).toContain('src="/docs/screenshots/dashboard-light.png"')
    const api = await (await call('/docs/agents')).text()
    expect(api).not.toMatch(/href="[^"]*\.md/)
    expect(api).not.toMatch(/href="\.\.\//)
  })

  it('the same for a person signed in, whose header links back to the docs', async () => {
    const account = await newAccount()
    const html = await (await call('/docs/web', { cookie: account.cookie })).text()
    expect(html).toContain(account.email)
    expect(html).toContain('<a href="/docs/readme">Docs</a>')
  })

  it('answers 404 for a page there is not, however it is spelled', async () => {
    for (const page of [
      'nope',
      'README',
      'cli.md',
      '..%2FREADME',
      'Cli',
      'a'.repeat(60),
      'cli%00',
    ]) {
      const res = await call(`/docs/${page}`)
      expect(res.status, page).toBe(404)
      expect(await res.text(), page).not.toContain('<article class="markdown">')
    }
  })
})
