import { readContent } from '../domain/canvases/publish'
import { READ } from '../http/actor/need'
import { searchWorkspace } from '../domain/search/search'
import { visibleText } from '../domain/search/text'
import * as output from '../schema/tool-outputs'
import * as input from '../schema/tools'
import { tool, type ToolContext } from './mcp-tool'

// Finding canvases over MCP: `search_canvases`, the API's search; and `search` and `fetch` in the
// shape ChatGPT's connectors and deep research call (a list of ids, titles and URLs; then one
// document's text), over the same index.

const pageOf = (ctx: ToolContext, id: string) => `${ctx.origin}/c/${id}`

export const SEARCH_TOOLS = [
  tool({
    name: 'search_canvases',
    title: 'Search canvases',
    description:
      'Find the workspace’s canvases by words of their titles and text, best match first, each ' +
      'with a snippet of its text around the words found and its view_url. Every word must be ' +
      'there; "a phrase" in quotes; prefix* for words that start so.',
    input: input.searchCanvasesInput,
    output: output.searchCanvasesResult,
    need: READ,
    run: async (ctx, { query, author, limit = 10, cursor }) => {
      const page = await searchWorkspace(ctx.svc, ctx.actor, {
        q: query,
        field: 'query',
        limit,
        cursor,
        author,
      })
      return {
        ...page,
        results: page.results.map((hit) => ({ ...hit, view_url: pageOf(ctx, hit.canvas_id) })),
      }
    },
  }),
  tool({
    name: 'search',
    title: 'Search',
    description:
      'Search the workspace’s canvases (reports, pages, notes, data) by words of their titles ' +
      'and text; answers ids to fetch, with titles and URLs, best match first.',
    input: input.searchInput,
    output: output.searchResult,
    need: READ,
    run: async (ctx, { query }) => {
      const page = await searchWorkspace(ctx.svc, ctx.actor, {
        q: query,
        field: 'query',
        limit: 20,
      })
      return {
        results: page.results.map((hit) => ({
          id: hit.canvas_id,
          title: hit.title,
          url: pageOf(ctx, hit.canvas_id),
        })),
      }
    },
  }),
  tool({
    name: 'fetch',
    title: 'Fetch a canvas',
    description:
      'The full text of a canvas that search found, by its id: its latest version (a site’s ' +
      'main file; an HTML page’s text as a reader sees it), with its title and URL.',
    input: input.fetchInput,
    output: output.fetchResult,
    need: READ,
    run: async (ctx, { id }) => {
      const read = await readContent(ctx.svc, ctx.actor, id)
      const { title, ext, version, rendererId } = read.content
      const about = { id, title, url: pageOf(ctx, id) }
      if (read.kind !== 'text') {
        const note =
          read.kind === 'binary'
            ? 'binary content: open the url to see it'
            : 'too large to return as text: open the url'
        return { ...about, text: '', metadata: { ext, version, note } }
      }
      const text = rendererId === 'html' ? visibleText(read.text) : read.text
      return { ...about, text, metadata: { ext, version } }
    },
  }),
]
