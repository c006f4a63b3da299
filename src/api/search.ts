import { Hono } from 'hono'
import { afterSearch, searchPage, searchStatement, type SearchPage } from '../domain/search/search'
import { publicOrigin, type AppContext, type AppEnv } from '../http/context'
import { keyInBatch } from '../http/actor/steps'
import { READ } from '../http/actor/need'
import { authorizeKey } from '../http/actor/key'
import { documented } from '../http/route-docs'
import { query } from '../http/validate'
import { searchQuery } from '../schema/workspace-requests'

// /v1/search (docs/api.md#search): the key's workspace's canvases found by words of their titles
// and text. The key is checked in the search's own D1 batch: one round trip.
export const search = new Hono<AppEnv>()

search.get(
  '/',
  keyInBatch(READ),
  query(searchQuery),
  documented({
    summary: 'Search canvases',
    description:
      'Canvases whose title or latest text holds every word of `q` (1 to 200 characters: words, ' +
      '`"phrases"` and `prefix*`), best match first, each with a `snippet` of its text and ' +
      'where the words found lie in it (`highlights`). `limit` 1 to 50 (default 20); pass ' +
      '`next_cursor` as `cursor` for the next page. A query with nothing to search for is 400.',
    tag: 'Canvases',
    responses: { 200: { description: 'A page of matches.', schema: 'searchList' } },
  }),
  async (c) => {
    const { limit = 20, ...rest } = c.req.valid('query')
    const wanted = { ...rest, limit }
    const keyHash = c.var.keyCheck!.hash
    let statement
    try {
      statement = searchStatement(c.var.svc, { keyHash }, wanted)
    } catch (err) {
      // A query that is not one is told so only to a key that may search.
      await authorizeKey(c, keyHash, [])
      throw err
    }
    const [rows] = await authorizeKey(c, keyHash, [statement])
    afterSearch(c.var.svc, c.var.actor.workspaceId)
    return c.json(withViewUrls(c, searchPage(rows, wanted)))
  },
)

/** Each match with the address of its page. */
export function withViewUrls(c: AppContext, page: SearchPage) {
  const origin = publicOrigin(c).origin
  return {
    ...page,
    results: page.results.map((hit) => ({ ...hit, view_url: `${origin}/c/${hit.canvas_id}` })),
  }
}
