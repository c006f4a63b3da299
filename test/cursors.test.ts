import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { bytesOf, call, errorOf, json, newAccount, newCanvas, upload } from './support/api'
import { seedCanvases } from './support/seed'

// Lists at any depth: `next_cursor` pages through canvases and versions in the order `offset`
// does, and a cursor page reads what a first page reads (docs/api.md).

describe('canvases by cursor', () => {
  it('walks every canvas in the offset order, ending with next_cursor null', async () => {
    const account = await newAccount()
    const fileId = await upload(account.key, bytesOf('paged'))
    const ids = await seedCanvases(account.workspaceId, account.userId, fileId, 45, null)
    // Seeded canvases share one created_at: the id breaks the tie, as in the offset order.
    const byOffset: string[] = []
    for (let offset = 0; offset < 45; offset += 10) {
      const page = await json(
        await call(`/v1/canvases?limit=10&offset=${offset}`, { key: account.key }),
      )
      byOffset.push(...page.canvases.map((c: any) => c.canvas_id))
    }
    const byCursor: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const query: string = cursor ? `&cursor=${cursor}` : ''
      const page = await json(await call(`/v1/canvases?limit=10${query}`, { key: account.key }))
      expect(page.offset).toBe(0)
      byCursor.push(...page.canvases.map((c: any) => c.canvas_id))
      cursor = page.next_cursor
      pages++
    } while (cursor)
    expect(pages).toBe(5)
    expect(byCursor).toEqual(byOffset)
    expect(new Set(byCursor)).toEqual(new Set(ids))
    // Exactly a page left: the page before it still knows it is not the last.
    const exact = await json(await call('/v1/canvases?limit=45', { key: account.key }))
    expect(exact.next_cursor).toBeNull()
    const before = await json(await call('/v1/canvases?limit=44', { key: account.key }))
    expect(before.next_cursor).toEqual(expect.any(String))
  })

  it('keeps the filters of the query it is given', async () => {
    const account = await newAccount()
    const fileId = await upload(account.key, bytesOf('paged'))
    // A later expiry than the other test's: seeded ids are made of it, and must not collide.
    await seedCanvases(account.workspaceId, account.userId, fileId, 12, Date.now() + 864e6)
    await env.DB.prepare(
      `UPDATE canvases SET visibility = 'public' WHERE workspace_id = ? AND rowid % 2 = 0`,
    )
      .bind(account.workspaceId)
      .run()
    const all = await json(
      await call('/v1/canvases?visibility=public&limit=100', { key: account.key }),
    )
    const first = await json(
      await call('/v1/canvases?visibility=public&limit=3', { key: account.key }),
    )
    const second = await json(
      await call(`/v1/canvases?visibility=public&limit=100&cursor=${first.next_cursor}`, {
        key: account.key,
      }),
    )
    expect([...first.canvases, ...second.canvases].map((c: any) => c.canvas_id)).toEqual(
      all.canvases.map((c: any) => c.canvas_id),
    )
  })

  it('refuses a cursor it did not give, and a cursor with an offset', async () => {
    const account = await newAccount()
    const bad = ['x', 'YS5i', '!!', 'a'.repeat(201), btoa('c.1.a/b').replace(/=+$/, '')]
    for (const cursor of bad) {
      const res = await call(`/v1/canvases?cursor=${encodeURIComponent(cursor)}`, {
        key: account.key,
      })
      expect(res.status, cursor).toBe(400)
      expect((await json(res)).error.message).toMatch(/^cursor: /)
    }
    const both = await call(`/v1/canvases?offset=10&cursor=${btoa('c.1.abc').replace(/=+$/, '')}`, {
      key: account.key,
    })
    expect(await json(both)).toEqual(
      errorOf('invalid_request', 'cursor: give either cursor or offset, not both'),
    )
  })

  it('refuses a query name given twice, on the list and on every other query alike', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key)
    // The list validates its query in its handler (queryOf), the others in a middleware (query):
    // the same checks, the same answers.
    for (const path of ['/v1/canvases', `/v1/canvases/${canvas.canvas_id}/versions`]) {
      const twice = await call(`${path}?limit=1&limit=2`, { key: account.key })
      expect(twice.status, path).toBe(400)
      expect(await json(twice)).toEqual(errorOf('invalid_request', 'limit: given more than once'))
      const zero = await json(await call(`${path}?limit=0`, { key: account.key }))
      expect(zero.error.code, path).toBe('invalid_request')
      expect(zero.error.message, path).toMatch(/^limit: /)
    }
  })
})

describe('versions by cursor', () => {
  it('pages through versions newest first; without limit or cursor, every version as before', async () => {
    const account = await newAccount()
    const first = await upload(account.key, bytesOf('v1'))
    const canvas = await json(
      await call('/v1/canvases', {
        method: 'POST',
        key: account.key,
        json: { file_id: first, title: 't', ext: 'txt' },
      }),
    )
    for (let i = 2; i <= 7; i++) {
      const fileId = await upload(account.key, bytesOf(`v${i}`))
      await call(`/v1/canvases/${canvas.canvas_id}`, {
        method: 'PATCH',
        key: account.key,
        json: { file_id: fileId },
      })
    }
    const base = `/v1/canvases/${canvas.canvas_id}/versions`
    const all = await json(await call(base, { key: account.key }))
    expect(all.versions.map((v: any) => v.version)).toEqual([7, 6, 5, 4, 3, 2, 1])
    expect(all.next_cursor).toBeUndefined()
    const seen: number[] = []
    let cursor: string | null = null
    do {
      const page: any = await json(
        await call(`${base}?limit=3${cursor ? `&cursor=${cursor}` : ''}`, { key: account.key }),
      )
      seen.push(...page.versions.map((v: any) => v.version))
      cursor = page.next_cursor
    } while (cursor)
    expect(seen).toEqual([7, 6, 5, 4, 3, 2, 1])
    const other = await newAccount()
    expect((await json(await call(`${base}?limit=3`, { key: other.key }))).error.code).toBe(
      'canvas_not_found',
    )
    const forged = btoa('v.1').replace(/=+$/, '')
    const empty = await json(await call(`${base}?cursor=${forged}`, { key: account.key }))
    expect(empty).toEqual({ versions: [], next_cursor: null })
  })
})
