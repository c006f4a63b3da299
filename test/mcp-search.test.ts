import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { newAccount, ORIGIN } from './support/api'
import { wild, wrongType } from './support/hostile-values'
import { connect, fails, ok, use } from './support/mcp'
import { runs } from './support/runs'

// Finding canvases from a chat app (docs/agents.md): search_canvases, and the search → fetch pair
// in the shape ChatGPT's connectors and deep research call, over the workspace's own canvases.

describe('search over MCP', () => {
  it('search then fetch: ids, titles and URLs, then the document’s text', async () => {
    const account = await newAccount()
    const client = await connect(account.key)
    const page = await ok(client, 'publish', {
      content: '<h1>Harbour survey</h1><script>var hidden = 1</script><p>Cormorants nest here.</p>',
      filename: 'survey.html',
    })
    const notes = await ok(client, 'publish', {
      content: '# Notes\n\nNo cormorants this year.',
      filename: 'notes.md',
    })
    await ok(client, 'publish', { content: 'unrelated', filename: 'other.txt' })
    const found = await ok(client, 'search', { query: 'cormorants' })
    expect(found.results.map((r: { id: string }) => r.id).sort()).toEqual(
      [page.canvas_id, notes.canvas_id].sort(),
    )
    for (const result of found.results) {
      expect(result).toEqual({
        id: result.id,
        title: expect.any(String),
        url: `${ORIGIN}/c/${result.id}`,
      })
      const doc = await ok(client, 'fetch', { id: result.id })
      expect(doc).toMatchObject({ id: result.id, title: result.title, url: result.url })
      expect(doc.text.toLowerCase()).toContain('cormorants')
    }
    // A page's text as a reader sees it: no markup, no script.
    const html = await ok(client, 'fetch', { id: page.canvas_id })
    expect(html.text).toContain('Harbour survey')
    expect(html.text).not.toMatch(/<|hidden/)
    expect(html.metadata).toEqual({ ext: 'html', version: 1 })
    await client.close()
  })

  it('search_canvases answers snippets and pages; fetch says why a binary has no text', async () => {
    const account = await newAccount()
    const client = await connect(account.key)
    for (let i = 0; i < 3; i++) {
      await ok(client, 'publish', { content: `heron count ${i}`, filename: `h${i}.txt` })
    }
    const first = await ok(client, 'search_canvases', { query: 'heron', limit: 2 })
    expect(first.results).toHaveLength(2)
    expect(first.results[0].snippet).toMatch(/heron/)
    expect(first.results[0].highlights).toEqual([[0, 5]])
    const rest = await ok(client, 'search_canvases', { query: 'heron', cursor: first.next_cursor })
    expect(rest.results).toHaveLength(1)
    const png = await ok(client, 'publish', {
      content_base64: 'iVBORw0KGgo=',
      filename: 'heron.png',
    })
    const binary = await ok(client, 'fetch', { id: png.canvas_id })
    expect(binary.text).toBe('')
    expect(binary.metadata.note).toMatch(/binary/)
    await client.close()
  })

  /** A client of a new workspace, beside another workspace's client and its canvas of `content`. */
  async function besideAnother(content: string) {
    const other = await connect((await newAccount()).key)
    const secret = await ok(other, 'publish', { content, filename: 'x.md' })
    const client = await connect((await newAccount()).key)
    return { client, other, secret }
  }

  it('refuses a query that is not one by its field, and never shows another workspace', async () => {
    const { client, other, secret } = await besideAnother('ibis plans')
    for (const query of ['"open', '***', '\ud800', 'a\u0000b', 'x'.repeat(201)]) {
      const result = await fails(client, 'search', { query }, 'invalid_request')
      expect(result).toMatch(/^invalid_request: query: /)
    }
    expect((await ok(client, 'search', { query: 'ibis' })).results).toEqual([])
    await fails(client, 'fetch', { id: secret.canvas_id }, 'canvas_not_found')
    await client.close()
    await other.close()
  })

  it('answers any generated argument with results or invalid_request, never another’s canvas', async () => {
    const { client, other, secret } = await besideAnother('a b c 1 2 3 x y z')
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          wild.map((query) => ({ name: 'search', args: { query } })),
          wild.map((query) => ({ name: 'search_canvases', args: { query } })),
          fc.record({
            name: fc.constantFrom('search', 'search_canvases', 'fetch'),
            args: fc.oneof(
              wrongType.map((query) => ({ query })),
              fc.constantFrom(0, 51, 1.5, '10', null).map((limit) => ({ query: 'a', limit })),
              fc.constantFrom('', '%%', 'czo5OTk5', 'x'.repeat(201)).map((cursor) => ({
                query: 'a',
                cursor,
              })),
              fc.constantFrom('', '../x', 'a/b', 'x'.repeat(65)).map((id) => ({ id })),
              wrongType.map((id) => ({ id })),
            ),
          }),
        ),
        async ({ name, args }) => {
          const result = await use(client, name, args as Record<string, unknown>)
          if (result.isError) {
            expect(result.content[0].text, JSON.stringify(args)).toMatch(
              /^(invalid_request|canvas_not_found): /,
            )
          } else {
            expect(JSON.stringify(result.structuredContent)).not.toContain(secret.canvas_id)
          }
        },
      ),
      { numRuns: runs(150) },
    )
    await client.close()
    await other.close()
  })
})
