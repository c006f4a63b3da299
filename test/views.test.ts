import { env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { countRead } from '../src/domain/views/count'
import type { ViewEvent } from '../src/lib/views'
import { viewGathering } from '../src/live/view-gathering'
import { browse, call, formPost, json, newAccount, newCanvas } from './support/api'
import { SOON } from './support/live'
import { connect } from './support/mcp'
import { realServices, sweepUntilDone } from './support/state'
import { readSettings } from '../src/lib/settings'
import { dayOf } from '../src/lib/views'

// Readership (docs/readership.md): people's reads are gathered by the isolate, counted by the
// canvas's Durable Object, never written to D1 on the read, and reach D1 in a batch when its alarm
// comes, at most once a minute; a reader is one reader within a day; reads by API keys are not
// counted.

const stub = (canvasId: string) => env.LIVE.get(env.LIVE.idFromName(canvasId))

/** The reads of the day the canvas's object holds, not yet written. */
const held = (canvasId: string) =>
  runInDurableObject(stub(canvasId), (_, state) => {
    try {
      const [row] = state.storage.sql
        .exec<{ n: number | null }>("SELECT sum(views) AS n FROM view_counts WHERE kind = 'day'")
        .toArray()
      return row?.n ?? 0
    } catch (err) {
      // No read counted yet: no table.
      if (String(err).includes('no such table')) return 0
      throw err
    }
  })

/** Until the canvas's object holds `count` reads of the day, not yet written. */
async function gathered(canvasId: string, count: number) {
  const deadline = Date.now() + SOON
  while (Date.now() < deadline) {
    if ((await held(canvasId)) >= count) return
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error(`the object never gathered ${count} reads`)
}

/** What the object keeps of its writes: when the next is due (unset: none), when it last wrote. */
const writes = (canvasId: string) =>
  runInDurableObject(stub(canvasId), async (_, state) => ({
    due: await state.storage.get<number>('views:flush_at'),
    written: await state.storage.get<number>('views:written_at'),
  }))

/** The reads of the day D1 holds for the canvas. */
const inD1 = async (canvasId: string) =>
  (
    await env.DB.prepare(
      "SELECT coalesce(sum(views), 0) AS n FROM canvas_views WHERE canvas_id = ? AND kind = 'day'",
    )
      .bind(canvasId)
      .first<{ n: number }>()
  )?.n ?? 0

/** Until `count` reads are counted, in the object or already in D1. */
async function counted(canvasId: string, count: number) {
  const deadline = Date.now() + SOON
  while (Date.now() < deadline) {
    // D1 first: a write between the two reads undercounts (and the loop goes on), never counts
    // the same reads twice.
    const written = await inD1(canvasId)
    if (written + (await held(canvasId)) >= count) return
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error(`never ${count} reads counted`)
}

/** Brings the object's next write to now (as a minute passing would), and runs it. */
async function writeNow(canvasId: string) {
  await runInDurableObject(stub(canvasId), async (_, state) => {
    if ((await state.storage.get('views:flush_at')) === undefined) return
    await state.storage.put('views:flush_at', Date.now() - 1)
    await state.storage.setAlarm(Date.now())
  })
  await runDurableObjectAlarm(stub(canvasId))
}

const as = (agent: string) => ({ headers: { 'User-Agent': agent } })

/** The canvas's readership once its refused opens are `wanted` (or the wait is over). */
async function refusedUntil(canvasId: string, key: string, wanted: Record<string, number>) {
  const deadline = Date.now() + SOON
  for (;;) {
    await writeNow(canvasId)
    const views = await json(await call(`/v1/canvases/${canvasId}/views`, { key }))
    if (JSON.stringify(views.denied) === JSON.stringify(wanted) || Date.now() > deadline) {
      return views
    }
    await new Promise((r) => setTimeout(r, 20))
  }
}

describe('readership', () => {
  it('counts people’s reads by day, version, link and member, written to D1 at most once a minute', async () => {
    const owner = await newAccount()
    const canvas = await newCanvas(owner.key, 'read me', { permanent: true })
    const id = canvas.canvas_id as string
    const link = await json(
      await call(`/v1/canvases/${id}/shares`, { method: 'POST', key: owner.key }),
    )
    // A member's page, a reader's share page twice (one reader), another reader's download.
    expect((await call(`/c/${id}`, { cookie: owner.cookie, ...as('Firefox') })).status).toBe(200)
    expect((await browse(`/s/${link.token}`, as('Safari'))).status).toBe(200)
    expect((await browse(`/s/${link.token}`, as('Safari'))).status).toBe(200)
    expect((await call(`/share/${link.token}/content`, as('curl'))).status).toBe(302)
    // An API key's read is not a person's.
    expect((await call(`/v1/canvases/${id}/content`, { key: owner.key })).status).toBe(302)
    await counted(id, 4)
    // The first read of a quiet canvas is written at once; those after it wait for the minute.
    const { due, written } = await writes(id)
    if (written !== undefined && (await held(id)) > 0) {
      expect(due).toBeGreaterThanOrEqual(written + 60_000)
    }
    await writeNow(id)
    expect(await held(id)).toBe(0)
    expect(await inD1(id)).toBe(4)

    const res = await call(`/v1/canvases/${id}/views?days=7`, { key: owner.key })
    expect(res.status).toBe(200)
    const views = await json(res)
    const today = new Date().toISOString().slice(0, 10)
    expect(views).toMatchObject({
      canvas_id: id,
      enabled: true,
      days: 7,
      total: 4,
      unique: 3,
      by_day: [{ date: today, views: 4, unique: 3 }],
      by_version: [{ version: 1, views: 4 }],
      by_link: [{ token_prefix: link.token.slice(0, 6), views: 3, unique: 2 }],
      members: [{ user_id: owner.userId, last_version: 1 }],
    })
    // What was written is forgotten by the object: another alarm writes nothing twice.
    await writeNow(id)
    await runDurableObjectAlarm(stub(id))
    const again = await json(await call(`/v1/canvases/${id}/views`, { key: owner.key }))
    expect(again.total).toBe(4)
  })

  it('keeps reads not yet written when its object is evicted, and writes them after', async () => {
    const owner = await newAccount()
    const id = (await newCanvas(owner.key, 'public', { permanent: true })).canvas_id as string
    await call(`/v1/canvases/${id}`, {
      method: 'PATCH',
      key: owner.key,
      json: { visibility: 'public' },
    })
    for (const agent of ['one', 'two', 'three']) await call(`/c/${id}`, as(agent))
    await counted(id, 3)
    await writeNow(id)
    // Three more while the minute runs; then the object goes, its memory with it.
    for (const agent of ['one', 'four', 'five']) await call(`/c/${id}`, as(agent))
    await counted(id, 6)
    expect(await held(id)).toBe(3)
    // abort() resets the object as an eviction would, and fails the call that made it.
    await runInDurableObject(stub(id), (_, state) => state.abort('evicted')).catch(() => {})
    expect(await held(id)).toBe(3)
    await writeNow(id)
    const views = await json(await call(`/v1/canvases/${id}/views`, { key: owner.key }))
    expect(views).toMatchObject({ total: 6, unique: 5 })
  })

  it('the sweep removes days past VIEW_RETENTION_DAYS, and a removed canvas’s counts with it', async () => {
    const owner = await newAccount()
    const kept = (await newCanvas(owner.key, 'kept', { permanent: true })).canvas_id as string
    const gone = (await newCanvas(owner.key, 'gone', { permanent: true })).canvas_id as string
    for (const id of [kept, gone]) {
      await call(`/c/${id}`, { cookie: owner.cookie })
      await counted(id, 1)
      await writeNow(id)
    }
    const today = dayOf(Date.now())
    const oldest = today - readSettings(env).viewRetentionDays + 1
    for (const day of [oldest - 1, oldest]) {
      await env.DB.prepare(
        `INSERT INTO canvas_views (canvas_id, day, kind, key, views, readers, last_at)
         VALUES (?, ?, 'day', '', 1, 1, 0)`,
      )
        .bind(kept, day)
        .run()
    }
    expect((await call(`/v1/canvases/${gone}`, { method: 'DELETE', key: owner.key })).status).toBe(
      200,
    )
    await sweepUntilDone(Date.now() + 1000)
    const days = await env.DB.prepare(
      "SELECT day FROM canvas_views WHERE canvas_id = ? AND kind = 'day' ORDER BY day",
    )
      .bind(kept)
      .all<{ day: number }>()
    expect(days.results.map((r) => r.day)).toEqual([oldest, today])
    const left = await env.DB.prepare(
      `SELECT (SELECT count(*) FROM canvas_views WHERE canvas_id = ?1) +
              (SELECT count(*) FROM canvas_member_views WHERE canvas_id = ?1) AS n`,
    )
      .bind(gone)
      .first<{ n: number }>()
    expect(left?.n).toBe(0)
  })

  it('answers an agent through MCP get_views, which counts no read of its own', async () => {
    const owner = await newAccount()
    const id = (await newCanvas(owner.key, 'for the agent', { permanent: true }))
      .canvas_id as string
    await call(`/c/${id}`, { cookie: owner.cookie })
    await counted(id, 1)
    await writeNow(id)
    const client = await connect(owner.key)
    try {
      const answer = await client.callTool({ name: 'get_views', arguments: { canvas_id: id } })
      expect(answer.isError).toBeFalsy()
      expect(answer.structuredContent).toMatchObject({
        canvas_id: id,
        enabled: true,
        days: 30,
        total: 1,
        members: [{ user_id: owner.userId, last_version: 1 }],
      })
      // The tool's own reads (and read_canvas's) are not a person's.
      await client.callTool({ name: 'read_canvas', arguments: { canvas_id: id } })
      expect(await held(id)).toBe(0)
      for (const days of [0, 91, 1.5, '7']) {
        const refused = await client.callTool({
          name: 'get_views',
          arguments: { canvas_id: id, days },
        })
        expect(refused.isError, String(days)).toBe(true)
      }
      const theirs = await connect((await newAccount()).key)
      const foreign = await theirs.callTool({ name: 'get_views', arguments: { canvas_id: id } })
      expect(foreign.isError).toBe(true)
      await theirs.close()
    } finally {
      await client.close()
    }
  })

  it('lists a workspace’s most read canvases, most read first, to its members only', async () => {
    const owner = await newAccount()
    const ids: string[] = []
    for (const title of ['once', 'thrice', 'gone']) {
      const id = (await newCanvas(owner.key, title, { permanent: true })).canvas_id as string
      await call(`/v1/canvases/${id}`, {
        method: 'PATCH',
        key: owner.key,
        json: { visibility: 'public' },
      })
      ids.push(id)
    }
    const [once, thrice, gone] = ids
    const reads: [string, string[]][] = [
      [once, ['a']],
      [thrice, ['a', 'b', 'a']],
      [gone, ['a', 'b']],
    ]
    for (const [id, agents] of reads) {
      for (const agent of agents) await call(`/c/${id}`, as(agent))
      await counted(id, agents.length)
      await writeNow(id)
    }
    expect((await call(`/v1/canvases/${gone}`, { method: 'DELETE', key: owner.key })).status).toBe(
      200,
    )
    const path = `/v1/workspaces/${owner.workspaceId}/views`
    const res = await call(path, { key: owner.key })
    expect(res.status).toBe(200)
    expect(await json(res)).toEqual({
      workspace_id: owner.workspaceId,
      enabled: true,
      days: 7,
      canvases: [
        { canvas_id: thrice, title: 'A canvas', views: 3, unique: 2 },
        { canvas_id: once, title: 'A canvas', views: 1, unique: 1 },
      ],
    })
    expect((await json(await call(`${path}?days=1`, { key: owner.key }))).days).toBe(1)
    const stranger = await newAccount()
    expect((await call(path, { key: stranger.key })).status).toBe(404)
    const own = await json(
      await call(`/v1/workspaces/${stranger.workspaceId}/views`, { key: stranger.key }),
    )
    expect(own.canvases).toEqual([])
    for (const days of ['0', '91', 'x']) {
      expect((await call(`${path}?days=${days}`, { key: owner.key })).status, days).toBe(400)
    }
  })

  it('shows members a Readers page: a bar a day, by version, link and member', async () => {
    const owner = await newAccount()
    const id = (await newCanvas(owner.key, 'read me', { permanent: true })).canvas_id as string
    const link = await json(
      await call(`/v1/canvases/${id}/shares`, { method: 'POST', key: owner.key }),
    )
    await call(`/c/${id}`, { cookie: owner.cookie, ...as('Firefox') })
    await call(`/share/${link.token}/content`, as('curl'))
    await counted(id, 2)
    await writeNow(id)
    // The canvas's page shows its week, and links to the rest.
    const canvasPage = await (await call(`/c/${id}`, { cookie: owner.cookie })).text()
    expect(canvasPage).toContain(`href="/c/${id}/readers"`)
    expect(canvasPage).toContain('2 views in the last 7 days.')
    const week = /<figure class="views-chart compact">[\s\S]*?<\/figure>/.exec(canvasPage)![0]
    expect(week.match(/<rect /g)).toHaveLength(7)
    expect(week).toContain(`${new Date().toISOString().slice(0, 10)}: 2 views</title>`)
    // The member who read it read the latest.
    expect(canvasPage).toMatch(/Read the latest version \(v1\): <bdi>[^<]+<\/bdi>\./)
    const res = await call(`/c/${id}/readers?days=7`, { cookie: owner.cookie })
    expect(res.status).toBe(200)
    const html = await res.text()
    expect(html).toContain('2 views by 2 readers in the last 7 days')
    // Seven bars, today's the last, drawn without a script.
    const chart = /<figure class="views-chart">[\s\S]*?<\/figure>/.exec(html)![0]
    expect(chart.match(/<rect /g)).toHaveLength(7)
    expect(html).toContain(`${new Date().toISOString().slice(0, 10)}: 2 views, 2 readers`)
    expect(html).toContain(`<code>${link.token.slice(0, 6)}…</code>`)
    expect(html).not.toContain(link.token)
    expect(html).toMatch(/<td data-label="Version read">v1<\/td>/)
    // Another workspace's member, a visitor, and a period not offered.
    const stranger = await newAccount()
    expect((await call(`/c/${id}/readers`, { cookie: stranger.cookie })).status).toBe(404)
    const visitor = await call(`/c/${id}/readers`)
    expect([302, 303]).toContain(visitor.status)
    expect((await call(`/c/${id}/readers?days=5`, { cookie: owner.cookie })).status).toBe(400)
  })

  it('counts refused opens of its links by reason, with the readers who met them', async () => {
    const owner = await newAccount()
    const id = (await newCanvas(owner.key, 'refusing', { permanent: true })).canvas_id as string
    const share = async (options: Record<string, unknown> = {}) =>
      (
        await json(
          await call(`/v1/canvases/${id}/shares`, {
            method: 'POST',
            key: owner.key,
            json: options,
          }),
        )
      ).token as string
    const [expired, once, locked, revoked] = [
      await share(),
      await share({ max_views: 1 }),
      await share({ password: 'open sesame' }),
      await share(),
    ]
    await env.DB.prepare('UPDATE share_links SET expires_at = ? WHERE token = ?')
      .bind(Date.now() - 1000, expired)
      .run()
    const revokedPath = `/v1/canvases/${id}/shares/${revoked}`
    expect((await call(revokedPath, { method: 'DELETE', key: owner.key })).status).toBe(200)
    // The link's one view, then a page and a download of it used up.
    expect((await call(`/share/${once}/content`, as('Safari'))).status).toBe(302)
    expect((await call(`/s/${once}`, as('Safari'))).status).toBe(410)
    expect((await call(`/share/${once}/content`, as('curl'))).status).toBe(410)
    // Two readers meet the expired link, one of them twice; a HEAD is nobody's open.
    expect((await call(`/s/${expired}`, as('Safari'))).status).toBe(410)
    expect((await call(`/s/${expired}/full`, as('Safari'))).status).toBe(410)
    expect((await call(`/share/${expired}/content`, as('curl'))).status).toBe(410)
    expect((await call(`/s/${expired}`, { method: 'HEAD', ...as('Edge') })).status).toBe(410)
    // A wrong password, by the page's form and by the API; none at all is asked for, not refused.
    const form = formPost({ password: 'nope' })
    const wrong = { ...form, headers: { ...form.headers, 'User-Agent': 'Safari' } }
    expect((await call(`/s/${locked}`, wrong)).status).toBe(403)
    const byApi = { headers: { 'X-Share-Password': 'nope', 'User-Agent': 'curl' } }
    expect((await call(`/share/${locked}/content`, byApi)).status).toBe(403)
    expect((await call(`/share/${locked}/content`, as('curl'))).status).toBe(401)
    // The revoked link, and a token that never was: only the first is this canvas's.
    expect((await call(`/s/${revoked}`, as('Safari'))).status).toBe(404)
    expect((await call(`/share/never-was-a-link/content`, as('Safari'))).status).toBe(404)

    const wanted = { expired: 3, revoked: 1, wrong_password: 2, max_views: 2 }
    const views = await refusedUntil(id, owner.key, wanted)
    expect(views.denied).toEqual(wanted)
    expect(views.denied_unique).toEqual({ expired: 2, revoked: 1, wrong_password: 2, max_views: 2 })
    // A refused open is no read: the link's one view is.
    expect(views.total).toBe(1)

    // The Readers page says so, and offers whoever may share a new link, its form open.
    const html = await (await call(`/c/${id}/readers`, { cookie: owner.cookie })).text()
    expect(html).toMatch(/The link had expired<\/td><td data-label="Opens">3<\/td>/)
    expect(html).toContain(`href="/c/${id}?share=new#new-share"`)
    // The canvas's page says them too, with the way to a new link.
    const canvasPage = await (await call(`/c/${id}`, { cookie: owner.cookie })).text()
    expect(canvasPage).toContain(
      'Refused opens this week: 3 on an expired link, 1 on a revoked link, ' +
        '2 with a wrong password, 2 on a used-up link.',
    )
    expect(canvasPage).toContain(`href="/c/${id}?share=new#new-share"`)
    const page = await (await call(`/c/${id}?share=new`, { cookie: owner.cookie })).text()
    expect(page).toContain('id="new-share"')
    // Any other value is a link edited by hand: dropped, as the dashboard's filters are.
    const edited = await call(`/c/${id}?share=%3Cscript%3Enew`, { cookie: owner.cookie })
    expect(edited.status).toBe(200)
    expect(await edited.text()).not.toContain('id="new-share"')

    // A revoked link is remembered 30 days: then its opens are no longer the canvas's, even
    // before the sweep forgets it (the next open of the expired link marks when all is counted).
    await env.DB.prepare('UPDATE revoked_links SET revoked_at = ? WHERE token = ?')
      .bind(Date.now() - 31 * 86_400_000, revoked)
      .run()
    expect((await call(`/s/${revoked}`, as('Safari'))).status).toBe(404)
    expect((await call(`/s/${expired}`, as('Opera'))).status).toBe(410)
    const later = await refusedUntil(id, owner.key, { ...wanted, expired: 4 })
    expect(later.denied.revoked).toBe(1)
    await sweepUntilDone(Date.now())
    const remembered = await env.DB.prepare(
      'SELECT count(*) AS n FROM revoked_links WHERE token = ?',
    )
      .bind(revoked)
      .first<{ n: number }>()
    expect(remembered?.n).toBe(0)
  })

  it('keeps a revoked custom token from other canvases while it is remembered', async () => {
    const owner = await newAccount()
    const other = await newAccount()
    const id = (await newCanvas(owner.key, 'launch', { permanent: true })).canvas_id as string
    const theirs = (await newCanvas(other.key, 'theirs', { permanent: true })).canvas_id as string
    const token = `launch-day-${Date.now()}`
    const share = (canvasId: string, key: string) =>
      call(`/v1/canvases/${canvasId}/shares`, { method: 'POST', key, json: { token } })
    expect((await share(id, owner.key)).status).toBe(201)
    const revoke = { method: 'DELETE', key: owner.key }
    expect((await call(`/v1/canvases/${id}/shares/${token}`, revoke)).status).toBe(200)
    // Another workspace cannot take it: its old readers would meet that canvas, counted here.
    const taken = await share(theirs, other.key)
    expect(taken.status).toBe(409)
    expect((await json(taken)).error.code).toBe('share_token_taken')
    // Its own canvas may share it again: it is a link again, no longer a revoked one.
    expect((await share(id, owner.key)).status).toBe(201)
    const remembered = await env.DB.prepare(
      'SELECT count(*) AS n FROM revoked_links WHERE token = ?',
    )
      .bind(token)
      .first<{ n: number }>()
    expect(remembered?.n).toBe(0)
  })

  it('shows each canvas’s views of the week on the dashboard, listed or found', async () => {
    const owner = await newAccount()
    const read = (await newCanvas(owner.key, 'weekly notes', { permanent: true }))
      .canvas_id as string
    const unread = (await newCanvas(owner.key, 'weekly draft', { permanent: true }))
      .canvas_id as string
    const link = await json(
      await call(`/v1/canvases/${read}/shares`, { method: 'POST', key: owner.key }),
    )
    await call(`/share/${link.token}/content`, as('curl'))
    await call(`/share/${link.token}/content`, as('Safari'))
    await counted(read, 2)
    await writeNow(read)
    // Days before the week are not in it.
    await env.DB.prepare(
      `INSERT INTO canvas_views (canvas_id, workspace_id, day, kind, key, views, readers, last_at)
       SELECT canvas_id, workspace_id, ?2, 'day', '', 40, 9, 0 FROM canvases WHERE canvas_id = ?1`,
    )
      .bind(read, dayOf(Date.now()) - 7)
      .run()
    const cell = (html: string, id: string) =>
      new RegExp(`href="/c/${id}/readers\\?days=7"[^>]*>(\\d+)</a>`).exec(html)?.[1]
    for (const path of ['/', '/?q=weekly']) {
      const html = await (await call(path, { cookie: owner.cookie })).text()
      expect(html, path).toContain('views of the last 7 days.')
      expect(cell(html, read), path).toBe('2')
      expect(cell(html, unread), path).toBe('0')
    }
  })

  it('writes nothing for a canvas gone before its reads were written, and forgets readers by day', async () => {
    const owner = await newAccount()
    const id = (await newCanvas(owner.key, 'short-lived', { permanent: true })).canvas_id as string
    // Nobody reads a HEAD.
    expect((await call(`/c/${id}`, { method: 'HEAD', cookie: owner.cookie })).status).toBe(200)
    await call(`/c/${id}`, { cookie: owner.cookie })
    await counted(id, 1)
    // A read after the first write waits for the minute; the canvas goes meanwhile.
    await writeNow(id)
    await call(`/c/${id}`, { cookie: owner.cookie, ...as('another') })
    await counted(id, 2)
    expect(await held(id)).toBe(1)
    await call(`/v1/canvases/${id}`, { method: 'DELETE', key: owner.key })
    await writeNow(id)
    expect(await inD1(id)).toBe(1)
    // Nothing is due, no socket is open: the alarm left is the end of the day, when the day's
    // readers are forgotten.
    const tomorrow = (Math.floor(Date.now() / 86_400_000) + 1) * 86_400_000
    const alarm = await runInDurableObject(stub(id), (_, state) => state.storage.getAlarm())
    expect(alarm).toBe(tomorrow)
  })

  it('answers only the canvas’s workspace, and refuses a period it cannot hold', async () => {
    const owner = await newAccount()
    const other = await newAccount()
    const canvas = await newCanvas(owner.key, 'mine')
    const id = canvas.canvas_id as string
    const theirs = await call(`/v1/canvases/${id}/views`, { key: other.key })
    expect(theirs.status).toBe(404)
    for (const days of ['0', '91', 'a', '-1']) {
      const res = await call(`/v1/canvases/${id}/views?days=${days}`, { key: owner.key })
      expect(res.status, days).toBe(400)
    }
    // A person no longer of the workspace (their last read kept) is not listed among its members.
    await env.DB.prepare(
      `INSERT INTO canvas_member_views (canvas_id, user_id, last_viewed_at, last_version)
       VALUES (?, ?, ?, 1)`,
    )
      .bind(id, other.userId, Date.now())
      .run()
    const none = await json(await call(`/v1/canvases/${id}/views`, { key: owner.key }))
    expect(none).toMatchObject({ total: 0, unique: 0, by_day: [], members: [] })
  })
})

describe('counting a read', () => {
  const DAY = 86_400_000
  /** The reads `countRead` hands on, at `now`, with the settings given. */
  async function handed(
    reads: { now: number; network: string; agent: string }[],
    analytics = true,
  ) {
    const views: ViewEvent[] = []
    for (const read of reads) {
      const base = realServices()
      await countRead(
        {
          ...base,
          now: () => read.now,
          settings: { ...base.settings, viewAnalytics: analytics },
          views: (_, view) => void views.push(view),
        },
        { canvasId: 'c', version: 1, network: read.network, agent: read.agent },
      )
    }
    return views
  }

  it('tells readers apart within a day, and cannot follow one to the next day', async () => {
    const day = Math.floor(Date.now() / DAY) * DAY
    const [a, again, other, tomorrow] = await handed([
      { now: day + 1000, network: '203.0.113.0', agent: 'Firefox' },
      { now: day + DAY - 1, network: '203.0.113.0', agent: 'Firefox' },
      { now: day + 2000, network: '203.0.113.0', agent: 'Safari' },
      { now: day + DAY, network: '203.0.113.0', agent: 'Firefox' },
    ])
    expect(a.reader).toBe(again.reader)
    expect(other.reader).not.toBe(a.reader)
    expect(tomorrow.reader).not.toBe(a.reader)
    // Neither the address nor the user agent leaves the request.
    for (const view of [a, other, tomorrow]) {
      expect(JSON.stringify(view)).not.toMatch(/203\.0\.113|Firefox|Safari/)
    }
  })

  it('counts nothing when VIEW_ANALYTICS is off', async () => {
    const reads = [{ now: Date.now(), network: '198.51.100.0', agent: 'x' }]
    expect(await handed(reads, false)).toEqual([])
    expect(await handed(reads, true)).toHaveLength(1)
  })
})

describe('an isolate gathering reads', () => {
  const view = (n: number): ViewEvent => ({ at: n, version: 1, reader: `r${n}` })

  it('hands each canvas’s reads to its object in one call a batch, at most 500 a call', async () => {
    const calls: [string, number][] = []
    const waits: Promise<unknown>[] = []
    const gather = viewGathering(async (id, views) => void calls.push([id, views.length]), 5)
    for (let n = 0; n < 1200; n++) gather('a', view(n), (work) => waits.push(work))
    gather('b', view(0), (work) => waits.push(work))
    // The first read's request holds the batch's wait; the others join it.
    expect(waits).toHaveLength(1)
    await Promise.all(waits)
    expect(calls).toEqual([
      ['a', 500],
      ['a', 500],
      ['a', 200],
      ['b', 1],
    ])
    // The next read starts a batch of its own.
    gather('a', view(1), (work) => waits.push(work))
    expect(waits).toHaveLength(2)
    await waits[1]
    expect(calls.at(-1)).toEqual(['a', 1])
  })

  it('loses only the calls that fail, and says so', async () => {
    const logged: string[] = []
    const original = console.error
    console.error = (...args: unknown[]) => void logged.push(args.join(' '))
    const sent: string[] = []
    try {
      const gather = viewGathering(async (id) => {
        if (id === 'down') throw new Error('object unreachable')
        sent.push(id)
      }, 1)
      const waits: Promise<unknown>[] = []
      for (const id of ['down', 'up']) gather(id, view(0), (work) => waits.push(work))
      await Promise.all(waits)
    } finally {
      console.error = original
    }
    expect(sent).toEqual(['up'])
    expect(logged.join('\n')).toMatch(/view_count_failed.*down.*object unreachable/)
  })
})
