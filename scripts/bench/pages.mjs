// The deepest page of a workspace's list, found through the API alone: the cursor that leads to
// it (keyset paging, whose cost should not grow with depth) and the offset that reaches the same
// page (whose cost does), so the two can be measured side by side.
import { expectStatus, fetchRetry } from '../lib/local-service.mjs'

// The largest `limit` GET /v1/canvases takes (listQuery in src/schema/requests.ts): the walk
// through 100,000 canvases is then 1,000 requests.
const WALK_LIMIT = 100

/** One page of GET /v1/canvases with `query` (a URLSearchParams init). */
async function listPage(url, key, query) {
  const path = `/v1/canvases?${new URLSearchParams(query)}`
  const res = await fetchRetry(`${url}${path}`, { headers: { Authorization: `Bearer ${key}` } })
  await expectStatus(res, [200], `GET ${path}`)
  return res.json()
}

/**
 * The last full page of the list as its first page is asked for (no `limit`: the default):
 * `{ limit, total, cursor, offset }`, where `?cursor=<cursor>` and `?offset=<offset>` both answer
 * the workspace's last `limit` canvases, the cursor's page with next_cursor null. A full page,
 * so that it is the same work as the first: the page after the first's chain of next_cursor
 * would hold what is left over, perhaps one canvas.
 *
 * next_cursor is walked `WALK_LIMIT` at a time; the cursors that started each walked page are
 * kept, and from the last one at or before the wanted page's start, one request of the right
 * `limit` answers the next_cursor that leads to it.
 */
export async function lastPage(url, key) {
  const { limit } = await listPage(url, key, {})
  const starts = [] // { cursor, at }: the walked page starting at canvas `at` (0-based)
  let page = { next_cursor: undefined, canvases: [] }
  let total = 0
  do {
    const cursor = page.next_cursor
    starts.push({ cursor, at: total })
    page = await listPage(url, key, { limit: WALK_LIMIT, ...(cursor && { cursor }) })
    total += page.canvases.length
  } while (page.next_cursor)
  const offset = total - limit
  if (offset < 1) throw new Error(`the workspace's ${total} canvases fit on its first page`)
  const from = starts.findLast((s) => s.at <= offset)
  const cursor =
    from.at === offset
      ? from.cursor
      : (
          await listPage(url, key, {
            limit: offset - from.at,
            ...(from.cursor && { cursor: from.cursor }),
          })
        ).next_cursor
  await checkSamePage(url, key, { limit, cursor, offset })
  return { limit, total, cursor, offset }
}

/** The cursor's page and the offset's hold the same `limit` canvases, and nothing follows. */
async function checkSamePage(url, key, { limit, cursor, offset }) {
  const byCursor = await listPage(url, key, { cursor })
  const byOffset = await listPage(url, key, { offset })
  const ids = (page) => page.canvases.map((c) => c.canvas_id).join()
  if (byCursor.canvases.length !== limit || byCursor.next_cursor !== null)
    throw new Error(
      `the last page by cursor holds ${byCursor.canvases.length} canvases and ` +
        `${byCursor.next_cursor === null ? 'no' : 'a'} next_cursor (expected ${limit} and none)`,
    )
  if (ids(byCursor) !== ids(byOffset))
    throw new Error(`the last page by cursor differs from the page at offset ${offset}`)
}
