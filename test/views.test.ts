import { env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { browse, call, json, newAccount, newCanvas } from './support/api'
import { SOON } from './support/live'

// Readership (docs/readership.md): people's reads are counted by the canvas's Durable Object,
// never written to D1 on the read, and reach D1 in a batch when its alarm comes; a reader is one
// reader within a day; reads by API keys are not counted.

const stub = (canvasId: string) => env.LIVE.get(env.LIVE.idFromName(canvasId))

/** Until the canvas's object holds `count` reads of the day, not yet written. */
async function gathered(canvasId: string, count: number) {
  const deadline = Date.now() + SOON
  while (Date.now() < deadline) {
    const tally = await runInDurableObject(stub(canvasId), (_, state) =>
      state.storage.get<{ counts: Record<string, { views: number }> }>('views:tally'),
    )
    const views = Object.entries(tally?.counts ?? {})
      .filter(([id]) => id.includes('|day|'))
      .reduce((sum, [, c]) => sum + c.views, 0)
    if (views >= count) return
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error(`the object never gathered ${count} reads`)
}

const rowsOf = async (canvasId: string) =>
  (
    await env.DB.prepare('SELECT count(*) AS n FROM canvas_views WHERE canvas_id = ?')
      .bind(canvasId)
      .first<{ n: number }>()
  )?.n

const as = (agent: string) => ({ headers: { 'User-Agent': agent } })

describe('readership', () => {
  it('counts people’s reads by day, version, link and member; written to D1 by the alarm only', async () => {
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
    await gathered(id, 4)
    // Nothing in D1 until the object writes it.
    expect(await rowsOf(id)).toBe(0)
    await runDurableObjectAlarm(stub(id))
    expect(await rowsOf(id)).toBeGreaterThan(0)

    const res = await call(`/v1/canvases/${id}/views?days=7`, { key: owner.key })
    expect(res.status).toBe(200)
    const views = await json(res)
    const today = new Date().toISOString().slice(0, 10)
    expect(views).toMatchObject({
      canvas_id: id,
      days: 7,
      total: 4,
      unique: 3,
      by_day: [{ date: today, views: 4, unique: 3 }],
      by_version: [{ version: 1, views: 4 }],
      by_link: [{ token_prefix: link.token.slice(0, 6), views: 3, unique: 2 }],
      members: [{ user_id: owner.userId, last_version: 1 }],
    })
    // The object forgets what it wrote: another alarm writes nothing twice.
    await runDurableObjectAlarm(stub(id))
    const again = await json(await call(`/v1/canvases/${id}/views`, { key: owner.key }))
    expect(again.total).toBe(4)
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
    const none = await json(await call(`/v1/canvases/${id}/views`, { key: owner.key }))
    expect(none).toMatchObject({ total: 0, unique: 0, by_day: [], members: [] })
  })
})
