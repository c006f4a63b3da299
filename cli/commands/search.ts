import { defineCommand } from 'citty'
import { cursor, positiveInt } from '../flags'
import { MAX_SEARCH_LIMIT, snippetParts } from '../../src/lib/search'
import { Formatted, visible } from '../output'
import { begin, bold, dim, globalArgs, print, printJson, viewUrl } from '../shared'
import type { SearchList } from '../types'
import { ago } from '../when'

// `svc search`: the workspace's canvases by words of their titles and text, best match first.

export default defineCommand({
  meta: { name: 'search', description: 'Find canvases by words of their titles and text' },
  args: {
    ...globalArgs,
    query: {
      type: 'positional',
      required: true,
      description: 'Words to find (all of them); "a phrase" in quotes; prefix* for a word’s start',
    },
    author: { type: 'string', description: 'Only what this member published: me, or their email' },
    limit: { type: 'string', description: 'How many (1-50)', default: '10' },
    cursor: { type: 'string', description: 'The page after the one that printed this cursor' },
  },
  async run({ args }) {
    const { api, settings } = begin('search', args)
    // Words typed without quotes arrive apart: all of them are the query.
    const q = args._.join(' ')
    const limit = positiveInt(args.limit, 'limit', MAX_SEARCH_LIMIT)
    const after = cursor(args.cursor)
    const body = await api.request<SearchList>('/v1/search', {
      query: { q, limit, cursor: after, author: args.author },
    })
    if (args.json) {
      return printJson({
        ...body,
        results: body.results.map((hit) => ({
          ...hit,
          view_url: viewUrl(settings, hit.canvas_id),
        })),
      })
    }
    if (body.results.length === 0) return print(dim('no canvas holds those words'))
    for (const hit of body.results) {
      const when = ago(hit.updated_at)
      print(
        new Formatted(
          `${bold(hit.title).text}  ${dim(`${hit.ext} · v${hit.version} · ${when}${by(hit.author)}`).text}`,
        ),
      )
      print(new Formatted(`  ${dim(hit.canvas_id).text}`))
      if (hit.snippet) print(new Formatted(`  ${marked(hit.snippet, hit.highlights)}`))
    }
    if (body.next_cursor) print(dim(`more: svc search ${quoted(q)} --cursor ${body.next_cursor}`))
  },
})

/** A snippet with the words found in bold (where the terminal shows it), everything made safe. */
function marked(snippet: string, highlights: [number, number][]): string {
  return snippetParts(snippet, highlights)
    .map((part) => (part.found ? bold(part.text).text : visible(part.text)))
    .join('')
}

const quoted = (q: string) => `'${q.replace(/'/g, `'\\''`)}'`

/** Who published a match, when the deployment says (one from before authors does not); dim() makes it safe. */
const by = (author?: { name: string }) => (author ? ` · by ${author.name}` : '')
