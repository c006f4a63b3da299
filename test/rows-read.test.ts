import { env } from 'cloudflare:test'
import { expect, it } from 'vitest'
import {
  bytesOf,
  call,
  json,
  metaOf,
  newAccount,
  newCanvas,
  presignAndPut,
  upload,
} from './support/api'
import { seedCanvases } from './support/seed'
import { meteredD1 } from '../src/storage/metered-d1'

// What D1 bills: rows read and rows written, from D1's own `meta` of every statement a request
// runs. Budget (issue: scale and cost): a point read reads at most 10 rows, a point write 23 (the
// key's row and its person's, who acts (http/actor); the triggers that keep usage's running totals read the workspace's totals row, and a version's
// canvas for its workspace; the audit log's event, written in the same batch, the names its
// details carry: a title, an email; a new canvas's default life and an upload's quota check, the
// workspace's row and its totals; a new version's search entry, the rows of the files it reads
// when the request did not store them itself, and the version it follows); a page of a list at most its rows + 11 (the key and its person among them; a canvas listed is its row and its author's), at any depth when paged by
// cursor; usage as many rows at 30 canvases as at 300. The table in BENCHMARKS.md comes from here
// (`npx vitest run --project workers test/rows-read.test.ts`).

type Cost = { trips: number; read: number; written: number }
type Init = Parameters<typeof call>[1] & {}

const POINT = 10
const WRITE = 23
const LIST_OVERHEAD = 11

/** How many of the workspace's canvases have had reads written (each adds its week's days to the dashboard). */
const readCanvases = async (workspaceId: string) =>
  (await env.DB.prepare('SELECT count(*) AS n FROM canvases WHERE workspace_id = ? AND viewed = 1')
    .bind(workspaceId)
    .first<{ n: number }>())!.n

const budgetOf = (route: string) => (route.startsWith('GET ') ? POINT : WRITE)

const measureAs = async (key: string, path: string, init: Init = {}): Promise<Cost> => {
  const { db, meter } = meteredD1(env.DB)
  const res = await call(path, { key, ...init, env: { DB: db } })
  expect(res.status, `${init.method ?? 'GET'} ${path}`).toBeLessThan(400)
  return { trips: meter.roundTrips, read: meter.rowsRead, written: meter.rowsWritten }
}

it('keeps every route within its D1 rows budget, whatever the workspace holds', async () => {
  const account = await newAccount()
  const key = account.key
  // 300 more canvases, so that a list or a write that reads the workspace would show it.
  const seeded = await upload(key, bytesOf('seeded bytes for the rows budget'))
  await seedCanvases(account.workspaceId, account.userId, seeded, 300, null)
  const canvas = await newCanvas(key, 'rows v1', { permanent: true })
  const id = canvas.canvas_id
  for (const n of [2, 3]) {
    await call(`/v1/canvases/${id}`, {
      method: 'PATCH',
      key,
      json: { file_id: await upload(key, bytesOf(`rows v${n}`)) },
    })
  }
  const site = await json(
    await call('/v1/canvases', {
      method: 'POST',
      key,
      json: {
        title: 'site',
        permanent: true,
        items: [
          { path: 'index.html', file_id: await upload(key, bytesOf('<p>hi</p>'), 'html') },
          { path: 'css/a.css', file_id: await upload(key, bytesOf('p{}'), 'css') },
        ],
      },
    }),
  )
  const link = await json(await call(`/v1/canvases/${id}/shares`, { method: 'POST', key }))
  // A canvas with 40 comments of 2 replies each, and a link that lets its readers comment: what a
  // new comment or reply reads must not grow with them.
  const commented = (await newCanvas(key, 'commented', { permanent: true })).canvas_id
  const commentsPath = `/v1/canvases/${commented}/comments`
  const commentLink = await json(
    await call(`/v1/canvases/${commented}/shares`, {
      method: 'POST',
      key,
      json: { allow_comments: true },
    }),
  )
  const threads: string[] = []
  for (let i = 0; i < 40; i++) {
    const made = await json(
      await call(commentsPath, { method: 'POST', key, json: { body: `comment ${i}` } }),
    )
    threads.push(made.comment_id)
    for (const body of ['a reply', 'another']) {
      await call(`${commentsPath}/${made.comment_id}/replies`, {
        method: 'POST',
        key,
        json: { body },
      })
    }
  }
  const publicId = (await newCanvas(key, 'public rows', { permanent: true })).canvas_id
  await call(`/v1/canvases/${publicId}`, { method: 'PATCH', key, json: { visibility: 'public' } })
  await call('/v1/me', { key }) // last_used_at is fresh: its write does not run again

  const measure = (path: string, init: Init = {}) => measureAs(key, path, init)
  // The cursor to page 11 of 300 canvases and more, 20 a page.
  let cursor: string | null = null
  for (let page = 0; page < 10; page++) {
    const query: string = cursor ? `&cursor=${cursor}` : ''
    cursor = (await json(await call(`/v1/canvases?limit=20${query}`, { key }))).next_cursor
  }
  expect(cursor).not.toBeNull()

  const points: Record<string, Cost> = {
    'GET /v1/me': await measure('/v1/me'),
    'GET /v1/canvases/:id': await measure(`/v1/canvases/${id}`),
    'GET /v1/canvases/:id/content': await measure(`/v1/canvases/${id}/content`),
    'GET /v1/canvases/:id/versions/:n': await measure(`/v1/canvases/${id}/versions/1`),
    'GET /v1/canvases/:id/versions/:n/items (2 files)': await measure(
      `/v1/canvases/${site.canvas_id}/versions/1/items`,
    ),
    'GET /v1/canvases/:id/content/:path': await measure(
      `/v1/canvases/${site.canvas_id}/content/css/a.css`,
    ),
    'GET /v1/canvases/:id/shares': await measure(`/v1/canvases/${id}/shares`),
    'GET /share/:token': await measure(`/share/${link.token}`, { key: undefined }),
    'GET /share/:token/content': await measure(`/share/${link.token}/content`, {
      key: undefined,
    }),
    'GET /c/:id (public viewer)': await measure(`/c/${publicId}`, { key: undefined }),
    'GET /v1/usage (300 canvases)': await measure('/v1/usage'),
    'POST /v1/upload/presign': await measure('/v1/upload/presign', {
      method: 'POST',
      json: await metaOf(bytesOf('presigned for the rows budget')),
    }),
  }
  const { meta } = await presignAndPut(key, bytesOf('finalized for the rows budget'))
  points['POST /v1/upload/finalize'] = await measure('/v1/upload/finalize', {
    method: 'POST',
    json: meta,
  })
  points['POST /v1/canvases'] = await measure('/v1/canvases', {
    method: 'POST',
    json: { file_id: await upload(key, bytesOf('created')), title: 't', ext: 'txt' },
  })
  const form = new FormData()
  form.append('file', new File(['uploaded in the request'], 'direct.txt'))
  points['POST /v1/canvases (multipart)'] = await measure('/v1/canvases', {
    method: 'POST',
    body: form,
  })
  points['PATCH /v1/canvases/:id (new version)'] = await measure(`/v1/canvases/${id}`, {
    method: 'PATCH',
    json: { file_id: await upload(key, bytesOf('rows v4')) },
  })
  points['PATCH /v1/canvases/:id (title)'] = await measure(`/v1/canvases/${id}`, {
    method: 'PATCH',
    json: { title: 'renamed' },
  })
  points['POST /v1/canvases/:id/permanent'] = await measure(`/v1/canvases/${id}/permanent`, {
    method: 'POST',
  })
  points['POST /v1/canvases/:id/shares'] = await measure(`/v1/canvases/${id}/shares`, {
    method: 'POST',
    json: {},
  })
  points['DELETE /v1/canvases/:id/shares/:token'] = await measure(
    `/v1/canvases/${id}/shares/${link.token}`,
    { method: 'DELETE' },
  )
  const thread = `${commentsPath}/${threads[0]}`
  Object.assign(points, {
    'POST /v1/canvases/:id/comments (40 held)': await measure(commentsPath, {
      method: 'POST',
      json: { body: 'measured', anchor: { quote: { exact: 'commented' } } },
    }),
    'POST /share/:token/comments': await measure(`/share/${commentLink.token}/comments`, {
      method: 'POST',
      key: undefined,
      json: { body: 'a visitor', name: 'Ada' },
    }),
  })
  points['DELETE /v1/canvases/:id'] = await measure(`/v1/canvases/${site.canvas_id}`, {
    method: 'DELETE',
  })
  for (const [route, cost] of Object.entries(points)) {
    expect(cost.read, route).toBeLessThanOrEqual(budgetOf(route))
  }

  // Lists: [cost, rows of the page]. A canvas listed is its row and its author's.
  const lists: Record<string, [Cost, number]> = {
    'GET /v1/canvases?limit=20': [await measure('/v1/canvases?limit=20'), 2 * 20],
    'GET /v1/canvases?limit=20&cursor= (page 11)': [
      await measure(`/v1/canvases?limit=20&cursor=${cursor}`),
      2 * 20,
    ],
    'GET /v1/canvases?limit=100': [await measure('/v1/canvases?limit=100'), 2 * 100],
    'GET /v1/canvases/:id/versions (4)': [await measure(`/v1/canvases/${id}/versions`), 4],
    // A change to a comment answers (and tells its viewers) the whole thread: its replies.
    'POST /v1/canvases/:id/comments/:c/replies (thread of 3)': [
      await measure(`${thread}/replies`, { method: 'POST', json: { body: 'measured reply' } }),
      3,
    ],
    'POST /v1/canvases/:id/comments/:c/resolve (thread of 3)': [
      await measure(`${thread}/resolve`, { method: 'POST' }),
      3,
    ],
    'POST /v1/canvases/:id/comments/:c/reopen (thread of 3)': [
      await measure(`${thread}/reopen`, { method: 'POST' }),
      3,
    ],
    // Its replies go with a comment, each found through its index and then deleted: two rows;
    // its audit event, written and answered for the webhooks: two more.
    'DELETE /v1/canvases/:id/comments/:c (and its 2 replies)': [
      await measure(`${commentsPath}/${threads[1]}`, { method: 'DELETE' }),
      2 * 2 + 2,
    ],
    // 40 open comments (one deleted, one new) and their replies (one thread has a third).
    'GET /v1/canvases/:id/comments (40 with 2 replies each)': [
      await measure(commentsPath),
      40 * 3 + 1,
    ],
    'GET /v1/canvases/:id/versions?limit=2&cursor=': [
      await measure(
        `/v1/canvases/${id}/versions?limit=2&cursor=${(await json(await call(`/v1/canvases/${id}/versions?limit=2`, { key }))).next_cursor}`,
      ),
      2,
    ],
    'GET / (dashboard, 20 a page)': [
      await measure('/', { key: undefined, cookie: account.cookie }),
      // A canvas listed that has been read adds its week's days (the next test): the pages this
      // test opened are written by their objects whenever their alarms come, counted after.
      2 * 20 + (7 + 2) * Math.min(20, await readCanvases(account.workspaceId)),
    ],
  }
  for (const [route, [cost, length]] of Object.entries(lists)) {
    expect(cost.read, route).toBeLessThanOrEqual(length + LIST_OVERHEAD)
  }
  // A word all 300 seeded canvases hold: a page of matches costs its rows (each match's text, for
  // its snippet, its canvas and its author), not the number of matches.
  const search = await measure('/v1/search?q=seeded&limit=20')
  expect(search.read).toBeLessThanOrEqual(3 * 20 + LIST_OVERHEAD)
  console.log(
    `| GET /v1/search?q=seeded&limit=20 (300 matches) | ${search.trips} | ${search.read} |`,
  )

  // The owner's page of a canvas shows three lists (its latest versions, its links, the files of
  // the version shown) beside the session and the canvas: each list's rows and 10 for each. Once
  // the canvas has been read, its Readers panel adds its week (the next test holds that).
  const owner = await measure(`/c/${id}`, { key: undefined, cookie: account.cookie })
  const listed = 4 + 1 + 1
  expect(owner.read).toBeLessThanOrEqual(listed + 30)

  // A person's read is counted (docs/readership.md) with no D1 write on its request: the pages
  // write nothing, the link's download its own view count alone, as before readership.
  expect(points['GET /c/:id (public viewer)'].written).toBe(0)
  expect(owner.written).toBe(0)
  expect(points['GET /share/:token/content'].written).toBe(1)

  // Not held to a budget, shown for what it costs: an offset walks every entry before the page.
  const unbounded: Record<string, Cost> = {
    'GET /v1/canvases?limit=20&offset=300': await measure('/v1/canvases?limit=20&offset=300'),
  }
  expect(unbounded['GET /v1/canvases?limit=20&offset=300'].read).toBeGreaterThan(300)

  const row = (route: string, c: Cost, budget: string) =>
    `| ${route} | ${c.trips} | ${c.read} | ${c.written} | ${budget} |`
  console.log(
    [
      '| Route | D1 round trips | rows read | rows written | budget (rows read) |',
      '| --- | ---: | ---: | ---: | ---: |',
      ...Object.entries(points).map(([r, c]) => row(r, c, `≤ ${budgetOf(r)}`)),
      ...Object.entries(lists).map(([r, [c, n]]) => row(r, c, `≤ ${n + LIST_OVERHEAD}`)),
      row('GET /c/:id (owner page: 4 versions, 1 link, 1 file)', owner, `≤ ${listed + 30}`),
      ...Object.entries(unbounded).map(([r, c]) => row(r, c, '—')),
    ].join('\n'),
  )
})

/**
 * A workspace of `count` canvases, half of them permanent, each with a link (with an expiry to
 * come, a view limit, or neither), and what usage must subtract: a deleted canvas with two
 * versions and a link, not yet swept, and a link expired but not yet settled by the sweep.
 */
async function workspaceOf(count: number) {
  const account = await newAccount()
  const key = account.key
  const fileId = await upload(key, bytesOf(`usage at ${count}`))
  const later = Date.now() + 3600_000 + count
  const ids = await seedCanvases(account.workspaceId, account.userId, fileId, count, later)
  const list = JSON.stringify(ids)
  await env.DB.batch([
    env.DB.prepare(
      `UPDATE canvases SET expires_at = NULL
       WHERE canvas_id IN (SELECT value FROM json_each(?) WHERE key % 2 = 0)`,
    ).bind(list),
    env.DB.prepare(
      `INSERT INTO share_links (token, canvas_id, max_views, created_at, expires_at)
       SELECT 'usage' || value, value, CASE key % 3 WHEN 1 THEN 5 END, ?1,
              CASE key % 3 WHEN 2 THEN ?2 END
       FROM json_each(?3)`,
    ).bind(Date.now(), later, list),
  ])
  const gone = await newCanvas(key, 'deleted, not yet swept', { permanent: true })
  await call(`/v1/canvases/${gone.canvas_id}`, {
    method: 'PATCH',
    key,
    json: { file_id: await upload(key, bytesOf(`second version at ${count}`)) },
  })
  await call(`/v1/canvases/${gone.canvas_id}/shares`, { method: 'POST', key, json: {} })
  await call(`/v1/canvases/${gone.canvas_id}`, { method: 'DELETE', key })
  const kept = await newCanvas(key, 'kept', { permanent: true })
  const link = await json(
    await call(`/v1/canvases/${kept.canvas_id}/shares`, {
      method: 'POST',
      key,
      json: { expires_in: '1h' },
    }),
  )
  await env.DB.prepare('UPDATE share_links SET expires_at = ? WHERE token = ?')
    .bind(Date.now() - 1, link.token)
    .run()
  return account
}

it('reads as many rows for usage at 30 canvases as at 300: running totals, not a count', async () => {
  const small = await workspaceOf(30)
  const large = await workspaceOf(300)
  const costs = []
  for (const { key } of [small, large]) {
    await call('/v1/me', { key }) // last_used_at is fresh: its write does not run again
    costs.push(await measureAs(key, '/v1/usage'))
  }
  const usages = [
    await json(await call('/v1/usage', { key: small.key })),
    await json(await call('/v1/usage', { key: large.key })),
  ]
  // Both hold what the budget is about: the seeded canvases and links, and what expired.
  expect(usages.map((u) => u.canvases.total)).toEqual([31, 301])
  expect(usages.map((u) => u.shares.active)).toEqual([30, 300])
  // Within 2 rows, not to the row: a run sharing its runtime with other files once read 2 fewer at
  // 300 than at 30 (not seen in a run of this file alone). A count would read ten times more.
  expect(Math.abs(costs[1].read - costs[0].read)).toBeLessThanOrEqual(2)
  expect(Math.max(costs[0].read, costs[1].read)).toBeLessThanOrEqual(2 * POINT)
  console.log(`GET /v1/usage: ${costs[0].read} rows read at 30 canvases, ${costs[1].read} at 300`)
})

it('reads the dashboard’s week of views from the days of the canvases read, nothing of the others', async () => {
  const account = await newAccount()
  const seeded = await upload(account.key, bytesOf('read and unread canvases'))
  await seedCanvases(account.workspaceId, account.userId, seeded, 60, null)
  const dashboard = () => measureAs(account.key, '/', { key: undefined, cookie: account.cookie })
  const first = (await env.DB.prepare(
    'SELECT canvas_id FROM canvases WHERE workspace_id = ? LIMIT 1',
  )
    .bind(account.workspaceId)
    .first<{ canvas_id: string }>())!.canvas_id
  const canvasPage = () =>
    measureAs(account.key, `/c/${first}`, { key: undefined, cookie: account.cookie })
  // Nobody has read them: the list alone, and a canvas's page reads nothing of readers.
  const unread = await dashboard()
  const pageUnread = await canvasPage()
  expect(unread.read).toBeLessThanOrEqual(2 * 20 + LIST_OVERHEAD)
  // Every canvas read on each of the last ten days, through a version and a link too: the rows of
  // the week's days, not of the versions, links and days before, are read.
  const today = Math.floor(Date.now() / 86_400_000)
  await env.DB.prepare(
    `WITH RECURSIVE past(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM past WHERE n < 9)
     INSERT INTO canvas_views (canvas_id, workspace_id, day, kind, key, views, readers, last_at)
     SELECT canvas_id, workspace_id, ?2 - n, kind, key, 2, 1, ?3 FROM canvases, past,
       (SELECT 'day' AS kind, '' AS key UNION ALL SELECT 'version', '1'
        UNION ALL SELECT 'link', 'aB3dE9')
     WHERE workspace_id = ?1`,
  )
    .bind(account.workspaceId, today, Date.now())
    .run()
  await env.DB.prepare('UPDATE canvases SET viewed = 1 WHERE workspace_id = ?')
    .bind(account.workspaceId)
    .run()
  // One canvas's links refused opens on each day too, for two reasons.
  await env.DB.prepare(
    `INSERT INTO canvas_views (canvas_id, workspace_id, day, kind, key, views, readers, last_at)
     SELECT canvas_id, workspace_id, day, 'denied', reason, 1, 1, ?2 FROM canvas_views,
       (SELECT 'expired' AS reason UNION ALL SELECT 'wrong_password')
     WHERE canvas_id = ?1 AND kind = 'day'`,
  )
    .bind(first, Date.now())
    .run()
  // Its page reads its week's days, the refused opens of those days and who read its latest:
  // never the versions' and links' rows between them.
  const page = await canvasPage()
  expect(page.read - pageUnread.read).toBeLessThanOrEqual(7 + 2 + 2 * 7 + 2 + 2)
  console.log(
    `| GET /c/:id (owner page, read on 10 days) | ${page.trips} | ${page.read} | unread: ${pageUnread.read} |`,
  )
  const read = await dashboard()
  expect(read.trips).toBe(unread.trips + 1)
  // A canvas's seven days and the two steps that find its first and pass its last; by the table's
  // key, the versions' and links' rows of those days would be read too.
  expect(read.read - unread.read).toBeLessThanOrEqual(20 * (7 + 2))
  const html = await (await call('/', { cookie: account.cookie })).text()
  expect(html.match(/readers\?days=7"[^>]*>14<\/a>/g)).toHaveLength(20)
  console.log(`| GET / (dashboard, 20 read canvases) | ${read.trips} | ${read.read} |`)
})

it('keeps the team routes within their budgets, whatever the team holds', async () => {
  const owner = await newAccount()
  const team = await json(
    await call('/v1/workspaces', { method: 'POST', key: owner.key, json: { name: 'Rows' } }),
  )
  const base = `/v1/workspaces/${team.workspace_id}`
  // 40 members, so that a route that reads them all would show it.
  const people = await seedMembers(team.workspace_id, 40)
  const measure = (path: string, init: Init = {}) => measureAs(owner.key, path, init)
  const invite = await json(
    await call(`${base}/invites`, { method: 'POST', key: owner.key, json: { role: 'viewer' } }),
  )
  const joiner = await newAccount()
  const points: Record<string, Cost> = {
    'POST /v1/workspaces': await measure('/v1/workspaces', {
      method: 'POST',
      json: { name: 'Another' },
    }),
    'PATCH /v1/workspaces/:id': await measure(base, { method: 'PATCH', json: { name: 'Rows 2' } }),
    'POST /v1/workspaces/:id/invites': await measure(`${base}/invites`, {
      method: 'POST',
      json: { role: 'editor' },
    }),
    'PATCH /v1/workspaces/:id/members/:user_id (41 members)': await measure(
      `${base}/members/${people[0]}`,
      { method: 'PATCH', json: { role: 'editor' } },
    ),
    'DELETE /v1/workspaces/:id/members/:user_id (41 members)': await measure(
      `${base}/members/${people[1]}`,
      { method: 'DELETE' },
    ),
    'DELETE /v1/workspaces/:id/invites/:invite_id': await measure(
      `${base}/invites/${invite.invite_id}`,
      { method: 'DELETE' },
    ),
  }
  for (const [route, cost] of Object.entries(points)) {
    expect(cost.read, route).toBeLessThanOrEqual(budgetOf(route))
  }
  const lists: Record<string, [Cost, number]> = {
    'GET /v1/workspaces (3)': [await measure('/v1/workspaces'), 3],
    // A member's row and their email: two rows each.
    'GET /v1/workspaces/:id/members (40)': [await measure(`${base}/members`), 2 * 40],
    'GET /v1/workspaces/:id/invites (1)': [await measure(`${base}/invites`), 1],
  }
  for (const [route, [cost, length]] of Object.entries(lists)) {
    expect(cost.read, route).toBeLessThanOrEqual(length + LIST_OVERHEAD)
  }
  // Joining counts the workspace's members against its limit: a row each, not held to a budget.
  const fresh = await json(
    await call(`${base}/invites`, { method: 'POST', key: owner.key, json: { role: 'viewer' } }),
  )
  const { db, meter } = meteredD1(env.DB)
  const joined = await call(`/auth/join/${fresh.url.split('/join/')[1]}`, {
    method: 'POST',
    cookie: joiner.cookie,
    env: { DB: db },
  })
  expect(joined.status).toBe(200)
  const join = { trips: meter.roundTrips, read: meter.rowsRead, written: meter.rowsWritten }
  const row = (route: string, c: Cost, budget: string) =>
    `| ${route} | ${c.trips} | ${c.read} | ${c.written} | ${budget} |`
  console.log(
    [
      ...Object.entries(points).map(([r, c]) => row(r, c, `≤ ${budgetOf(r)}`)),
      ...Object.entries(lists).map(([r, [c, n]]) => row(r, c, `≤ ${n + LIST_OVERHEAD}`)),
      row('POST /auth/join/:token (40 members)', join, '—'),
    ].join('\n'),
  )
})

/** `count` people made members (viewers) of the workspace by SQL; answers their user ids. */
async function seedMembers(workspaceId: string, count: number) {
  const ids = Array.from(
    { length: count },
    (_, i) => `seeded${i}${crypto.randomUUID().slice(0, 8)}`,
  )
  const now = Date.now()
  await env.DB.batch(
    ids.flatMap((id) => [
      env.DB.prepare(
        'INSERT INTO users (user_id, email, password_hash, created_at) VALUES (?, ?, ?, ?)',
      ).bind(id, `${id}@example.com`, 'x', now),
      env.DB.prepare(
        `INSERT INTO members (workspace_id, user_id, role, joined_at) VALUES (?, ?, 'viewer', ?)`,
      ).bind(workspaceId, id, now),
    ]),
  )
  return ids
}
