import { createScheduledController, env } from 'cloudflare:test'
import { describe, expect, it, vi } from 'vitest'
import worker from '../src/index'
import type { Bindings } from '../src/lib/settings'
import { sweep, type SweepOptions } from '../src/domain/sweep'
import { blobKey } from '../src/storage/blobs'
import {
  bytesOf,
  call,
  csrfOf,
  follow,
  formPost,
  json,
  newAccount,
  newCanvas,
  presignAndPut,
  sha256,
  upload,
  REQUEST_ID,
} from './support/api'
import { connect, grantOf } from './support/oauth'
import { seedCanvases } from './support/seed'
import { createWebhook } from './support/webhooks'
import { countRows } from './support/state'
import { database } from '../src/storage/db'
import { meteredD1 } from '../src/storage/metered-d1'
import { realServices } from './support/state'

const HOUR = 3600_000
const services = realServices
const runSweep = (options: SweepOptions) => sweep(services(), options)

describe('the scheduled handler', () => {
  it('runs the sweep at the trigger time and logs one JSON summary line', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'soon gone')
    const log = vi.spyOn(console, 'log')
    const controller = createScheduledController({
      scheduledTime: new Date(Date.now() + 25 * HOUR),
      cron: '*/15 * * * *',
    })
    await worker.scheduled(controller, env as Bindings)
    const lines = log.mock.calls
      .map((c) => String(c[0]))
      .filter((l) => l.includes('"event":"sweep"'))
    log.mockRestore()
    expect(lines).toHaveLength(1)
    expect(JSON.parse(lines[0])).toEqual({
      level: 'info',
      event: 'sweep',
      canvases: expect.any(Number),
      versions: expect.any(Number),
      files: expect.any(Number),
      objects: expect.any(Number),
      bytes_freed: expect.any(Number),
      shares: expect.any(Number),
      sessions: expect.any(Number),
      idempotency_keys: expect.any(Number),
      oauth_grants: expect.any(Number),
      webhook_deliveries: expect.any(Number),
      invites: expect.any(Number),
      password_resets: expect.any(Number),
      device_codes: expect.any(Number),
      audit_events: expect.any(Number),
      view_counts: expect.any(Number),
      revoked_links: expect.any(Number),
      search_texts: expect.any(Number),
      workspaces: expect.any(Number),
      complete: true,
      ms: expect.any(Number),
      webhooks_rescued: 0,
      d1: {
        round_trips: expect.any(Number),
        statements: expect.any(Number),
        rows_read: expect.any(Number),
        rows_written: expect.any(Number),
      },
    })
    const summary = JSON.parse(lines[0])
    expect(summary.canvases).toBeGreaterThanOrEqual(1)
    // One batch per step at least, and the canvas, its version and file rows written away.
    expect(summary.d1.round_trips).toBeGreaterThanOrEqual(6)
    expect(summary.d1.statements).toBeGreaterThan(summary.d1.round_trips)
    expect(summary.d1.rows_written).toBeGreaterThanOrEqual(2)
    expect(
      await countRows('SELECT COUNT(*) AS n FROM canvases WHERE canvas_id = ?', canvas.canvas_id),
    ).toBe(0)
  })
})

describe('expired canvases', () => {
  it('2,000 expired canvases are removed over repeated runs; others stay byte for byte', async () => {
    const account = await newAccount()
    const fileId = await upload(account.key, bytesOf('shared by all seeded canvases'))
    const expired = await seedCanvases(
      account.workspaceId,
      account.userId,
      fileId,
      2000,
      Date.now() - 1000,
    )
    const keep = await newCanvas(account.key, 'permanent bytes', { permanent: true })
    const alive = await newCanvas(account.key, 'still alive bytes')
    const link = await json(
      await call(`/v1/canvases/${expired[0]}/shares`, { method: 'POST', key: account.key }),
    )
    expect(link.error.code).toBe('canvas_not_found')

    let runs = 0
    let removed = 0
    for (;;) {
      runs++
      const summary = await runSweep({ now: Date.now(), batchSize: 300, budgetMs: 0 })
      removed += summary.canvases
      if (summary.complete) break
      expect(runs).toBeLessThan(50)
    }
    expect(runs).toBeGreaterThan(1)
    expect(removed).toBe(2000)
    expect(
      await countRows(
        'SELECT COUNT(*) AS n FROM canvases WHERE workspace_id = ?',
        account.workspaceId,
      ),
    ).toBe(2)
    expect(await countRows(`SELECT COUNT(*) AS n FROM versions WHERE canvas_id LIKE 'seed%'`)).toBe(
      0,
    )
    for (const [canvas, text] of [
      [keep, 'permanent bytes'],
      [alive, 'still alive bytes'],
    ] as const) {
      const res = await call(`/v1/canvases/${canvas.canvas_id}/content`, { key: account.key })
      expect(await (await follow(res)).text()).toBe(text)
    }
  })

  it('removes the expired canvas with its versions and share links; a second run finds nothing', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'v1')
    await call(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'PATCH',
      key: account.key,
      json: { file_id: await upload(account.key, bytesOf('v2')) },
    })
    await call(`/v1/canvases/${canvas.canvas_id}/shares`, { method: 'POST', key: account.key })
    await env.DB.prepare('UPDATE canvases SET expires_at = ? WHERE canvas_id = ?')
      .bind(Date.now() - 1, canvas.canvas_id)
      .run()
    const first = await runSweep({ now: Date.now() })
    expect(first).toMatchObject({ canvases: 1, versions: 2, complete: true })
    expect(
      await countRows(
        'SELECT COUNT(*) AS n FROM share_links WHERE canvas_id IS NULL OR canvas_id = ?',
        canvas.canvas_id,
      ),
    ).toBe(0)
    const second = await runSweep({ now: Date.now() })
    expect(second).toMatchObject({ canvases: 0, versions: 0 })
  })
})

describe('files and objects', () => {
  it('removes unreferenced files after the grace period, never referenced ones', async () => {
    const account = await newAccount()
    const kept = await newCanvas(account.key, 'referenced', { permanent: true })
    const doomed = await newCanvas(account.key, 'deleted canvas content', { permanent: true })
    await call(`/v1/canvases/${doomed.canvas_id}`, { method: 'DELETE', key: account.key })
    const doomedKey = blobKey(account.workspaceId, await sha256(bytesOf('deleted canvas content')))
    const keptKey = blobKey(account.workspaceId, await sha256(bytesOf('referenced')))

    // Within the grace period nothing goes.
    await runSweep({ now: Date.now() + HOUR })
    expect(await env.BUCKET.head(doomedKey)).not.toBeNull()

    const summary = await runSweep({ now: Date.now() + 2 * HOUR })
    expect(summary.files).toBeGreaterThanOrEqual(1)
    expect(summary.bytes_freed).toBeGreaterThanOrEqual(22)
    expect(await env.BUCKET.head(doomedKey)).toBeNull()
    expect(await countRows('SELECT COUNT(*) AS n FROM files WHERE blob_key = ?', doomedKey)).toBe(0)
    expect(await env.BUCKET.head(keptKey)).not.toBeNull()
    const res = await call(`/v1/canvases/${kept.canvas_id}/content`, { key: account.key })
    expect(await (await follow(res)).text()).toBe('referenced')
  })

  it('removes unfinalized uploads and orphan objects after a day, not before', async () => {
    const account = await newAccount()
    const { meta, presign } = await presignAndPut(
      account.key,
      bytesOf('uploaded but never finalized'),
    )
    const orphanKey = blobKey(account.workspaceId, 'ab'.repeat(32))
    await env.BUCKET.put(orphanKey, 'no row names me')
    const strayKey = 'files/zz/not-a-blob'
    await env.BUCKET.put(strayKey, 'stray')

    await runSweep({ now: Date.now() + 2 * HOUR })
    // The pending row is gone after the grace period, and its object with it.
    expect(
      await countRows('SELECT COUNT(*) AS n FROM files WHERE file_id = ?', presign.file_id),
    ).toBe(0)
    expect(await env.BUCKET.head(presign.blob_key)).toBeNull()
    expect(await env.BUCKET.head(orphanKey)).not.toBeNull()

    const later = await runSweep({ now: Date.now() + 25 * HOUR })
    expect(later.objects).toBeGreaterThanOrEqual(2)
    expect(await env.BUCKET.head(orphanKey)).toBeNull()
    expect(await env.BUCKET.head(strayKey)).toBeNull()
    expect(await countRows('SELECT COUNT(*) AS n FROM files WHERE blob_key = ?', orphanKey)).toBe(0)
  })

  it('content being removed cannot be attached or uploaded again meanwhile', async () => {
    const account = await newAccount()
    const content = bytesOf('about to be swept')
    const fileId = await upload(account.key, content)
    const canvas = await newCanvas(account.key, 'host', { permanent: true })
    await env.DB.prepare(`UPDATE files SET status = 'deleting' WHERE file_id = ?`)
      .bind(fileId)
      .run()
    const attach = await call(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'PATCH',
      key: account.key,
      json: { file_id: fileId },
    })
    expect(attach.status).toBe(404)
    expect((await json(attach)).error.code).toBe('file_not_found')
    const meta = {
      sha256: await sha256(content),
      ext: 'txt',
      size: content.byteLength,
      mime: 'text/plain',
    }
    for (const path of ['/v1/upload/presign', '/v1/upload/finalize']) {
      const res = await call(path, { method: 'POST', key: account.key, json: meta })
      expect(res.status).toBe(409)
      expect(await json(res)).toEqual({
        error: {
          code: 'conflict',
          message: 'this content is being removed by the cleanup job; retry in a few seconds',
          request_id: REQUEST_ID,
        },
      })
    }
    await runSweep({ now: Date.now() })
    // Gone: a fresh upload starts over.
    expect(await upload(account.key, content)).not.toBe(fileId)
  })

  it('a file attached while the sweep marks is never removed (the statements decide)', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'host', { permanent: true })
    const fileId = await upload(account.key, bytesOf('raced content'))
    await env.DB.prepare('UPDATE files SET touched_at = 0 WHERE file_id = ?').bind(fileId).run()
    // Attach and sweep at the same time, many times over.
    const [patch] = await Promise.all([
      call(`/v1/canvases/${canvas.canvas_id}`, {
        method: 'PATCH',
        key: account.key,
        json: { file_id: fileId },
      }),
      runSweep({ now: Date.now() }),
    ])
    if (patch.status === 200) {
      await runSweep({ now: Date.now() + 48 * HOUR })
      const res = await call(`/v1/canvases/${canvas.canvas_id}/content`, { key: account.key })
      expect(await (await follow(res)).text()).toBe('raced content')
    } else {
      expect((await json(patch)).error.code).toBe('file_not_found')
    }
  })

  it('two overlapping runs are safe', async () => {
    const account = await newAccount()
    const fileId = await upload(account.key, bytesOf('overlap'))
    await seedCanvases(account.workspaceId, account.userId, fileId, 300, Date.now() - 1)
    const keep = await newCanvas(account.key, 'keep me', { permanent: true })
    const [a, b] = await Promise.all([
      runSweep({ now: Date.now() + 2 * HOUR, batchSize: 50 }),
      runSweep({ now: Date.now() + 2 * HOUR, batchSize: 50 }),
    ])
    expect(a.canvases + b.canvases).toBe(300)
    const res = await call(`/v1/canvases/${keep.canvas_id}/content`, { key: account.key })
    expect(await (await follow(res)).text()).toBe('keep me')
  })
})

describe('links and sessions', () => {
  it('drops links expired over 30 days and expired sessions', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'x', { permanent: true })
    const old = await json(
      await call(`/v1/canvases/${canvas.canvas_id}/shares`, {
        method: 'POST',
        key: account.key,
        json: { expires_in: '1h' },
      }),
    )
    const fresh = await json(
      await call(`/v1/canvases/${canvas.canvas_id}/shares`, {
        method: 'POST',
        key: account.key,
        json: { expires_in: '1h' },
      }),
    )
    await env.DB.prepare('UPDATE share_links SET expires_at = ? WHERE token = ?')
      .bind(Date.now() - 31 * 24 * HOUR, old.token)
      .run()
    await env.DB.prepare('UPDATE sessions SET expires_at = 1 WHERE user_id = ?')
      .bind(account.userId)
      .run()
    const summary = await runSweep({ now: Date.now() })
    expect(summary.shares).toBeGreaterThanOrEqual(1)
    expect(summary.sessions).toBeGreaterThanOrEqual(1)
    expect(
      await countRows('SELECT COUNT(*) AS n FROM share_links WHERE token = ?', old.token),
    ).toBe(0)
    expect(
      await countRows('SELECT COUNT(*) AS n FROM share_links WHERE token = ?', fresh.token),
    ).toBe(1)
    expect(
      await countRows('SELECT COUNT(*) AS n FROM sessions WHERE user_id = ?', account.userId),
    ).toBe(0)
  })
})

describe('OAuth grants', () => {
  it('removes grants ended over 30 days ago with their secrets, by its own clock', async () => {
    const owner = await newAccount()
    const kept = await connect(owner)
    const gone = await connect(owner)
    const grantId = grantOf(gone.tokens.access_token)
    // Disconnected in Settings: kept 30 days, then removed.
    await call(`/settings/apps/${grantId}/revoke`, {
      ...formPost({ _csrf: await csrfOf(owner.cookie) }),
      cookie: owner.cookie,
    })
    const rows = (id: string) =>
      env.DB.prepare(
        'SELECT (SELECT COUNT(*) FROM oauth_grants WHERE grant_id = ?1) AS g, ' +
          '(SELECT COUNT(*) FROM oauth_secrets WHERE grant_id = ?1) AS s',
      )
        .bind(id)
        .first<{ g: number; s: number }>()
    expect(await rows(grantId)).toEqual({ g: 1, s: 2 })
    await runSweep({ now: Date.now() + 29 * 24 * HOUR })
    expect(await rows(grantId)).toEqual({ g: 1, s: 2 })
    const summary = await runSweep({ now: Date.now() + 31 * 24 * HOUR })
    expect(summary.oauth_grants).toBeGreaterThanOrEqual(1)
    expect(await rows(grantId)).toEqual({ g: 0, s: 0 })
    // A grant in use stands its idle period from its last refresh, and is not touched.
    expect(await rows(grantOf(kept.tokens.access_token))).toEqual({ g: 1, s: 2 })
  })
})

describe('a canvas of more items than a batch', () => {
  it('goes over several batches, items first, and its files are collected', async () => {
    const account = await newAccount()
    const tag = crypto.randomUUID()
    const items = []
    for (let i = 0; i < 5; i++) {
      items.push({ path: `p${i}.txt`, file_id: await upload(account.key, bytesOf(`${tag} ${i}`)) })
    }
    const site = await json(
      await call('/v1/canvases', {
        method: 'POST',
        key: account.key,
        json: { title: 'big', items, main: 'p0.txt' },
      }),
    )
    await call(`/v1/canvases/${site.canvas_id}`, {
      method: 'PATCH',
      key: account.key,
      json: { items: items.slice(1), main: 'p1.txt' },
    })
    await env.DB.prepare('UPDATE canvases SET expires_at = ? WHERE canvas_id = ?')
      .bind(Date.now() - 1, site.canvas_id)
      .run()
    let runs = 0
    for (;;) {
      runs++
      const summary = await runSweep({ now: Date.now() + 3 * HOUR, batchSize: 2, budgetMs: 0 })
      if (summary.complete) break
      expect(runs).toBeLessThan(100)
    }
    expect(runs).toBeGreaterThan(3)
    for (const table of ['canvases', 'versions', 'version_items']) {
      expect(
        await countRows(`SELECT COUNT(*) AS n FROM ${table} WHERE canvas_id = ?`, site.canvas_id),
        table,
      ).toBe(0)
    }
    expect(
      await countRows(
        'SELECT COUNT(*) AS n FROM files WHERE workspace_id = ?',
        account.workspaceId,
      ),
    ).toBe(0)
  })
})

describe('what the sweep costs in D1', () => {
  // The shape `npm run bench` sweeps: canvases of one version each, on a file another canvas still
  // holds, so that what is measured is what removing a canvas reads (BENCHMARKS.md: Sweep). The
  // review of the fourth round found 13 rows a canvas: the usage totals' triggers read the canvas
  // (and a BEFORE trigger the row once more), and comments' key a row of theirs, for each. Whether
  // a canvas's expiry was its deletion is told from its own row (it asked the audit log: a row).
  // Its entry in the search index goes with it (a trigger): its row, found by its canvas.
  it('reads at most 11 rows per canvas it removes, and counts them out of the totals', async () => {
    const account = await newAccount()
    const kept = await newCanvas(account.key, 'held', { permanent: true })
    const fileId = (await env.DB.prepare('SELECT file_id FROM versions WHERE canvas_id = ?')
      .bind(kept.canvas_id)
      .first<{ file_id: string }>())!.file_id
    const ids = await seedCanvases(
      account.workspaceId,
      account.userId,
      fileId,
      1000,
      Date.now() - 1000,
    )
    const { db, meter } = meteredD1(env.DB)
    const summary = await sweep({ ...services(), db: database(db) }, { now: Date.now() })
    expect(summary.complete).toBe(true)
    expect(summary.canvases).toBeGreaterThanOrEqual(ids.length)
    const perCanvas = meter.rowsRead / summary.canvases
    expect(perCanvas).toBeLessThanOrEqual(11.1)
    // What they counted left the workspace's totals with them.
    const usage = await json(await call('/v1/usage', { key: account.key }))
    expect(usage.canvases.total).toBe(1)
    expect(usage.versions).toBe(1)
  })

  it('reads at most 9 rows per canvas it removes and per file it collects', async () => {
    const account = await newAccount()
    const count = 1000
    const old = Date.now() - 48 * HOUR
    // Expired canvases, each with a version holding a file of its own, past the grace period.
    const ids = JSON.stringify(
      Array.from({ length: count }, (_, i) => `cost${i}x${account.userId}`),
    )
    await env.DB.batch([
      env.DB.prepare(
        `INSERT INTO files (file_id, workspace_id, sha256, size, mime, blob_key, status, created_at, touched_at)
         SELECT 'f' || value, ?1, 'sha' || value, 10, 'text/plain', 'files/xx/' || value, 'ready', ?2, ?2
         FROM json_each(?3)`,
      ).bind(account.workspaceId, old, ids),
      env.DB.prepare(
        `INSERT INTO canvases (canvas_id, workspace_id, owner_user_id, title, ext, renderer_id,
                               visibility, version, created_at, updated_at, expires_at, size)
         SELECT value, ?1, ?2, 'expired', 'txt', 'text', 'private', 1, ?3, ?3, ?3, 10 FROM json_each(?4)`,
      ).bind(account.workspaceId, account.userId, old, ids),
      env.DB.prepare(
        `INSERT INTO versions (canvas_id, version, file_id, size, created_at, main_path, item_count)
         SELECT value, 1, 'f' || value, 10, ?1, 'index.txt', 1 FROM json_each(?2)`,
      ).bind(old, ids),
      env.DB.prepare(
        `INSERT INTO version_items (canvas_id, version, path, file_id)
         SELECT value, 1, 'index.txt', 'f' || value FROM json_each(?1)`,
      ).bind(ids),
    ])
    const { db, meter } = meteredD1(env.DB)
    const summary = await sweep({ ...services(), db: database(db) }, { now: Date.now() })
    expect(summary.complete).toBe(true)
    // Other test files' leftovers may be swept too: they count on both sides.
    expect(summary.canvases).toBeGreaterThanOrEqual(count)
    expect(summary.files).toBeGreaterThanOrEqual(count)
    const perItem = meter.rowsRead / (summary.canvases + summary.files)
    expect(perItem).toBeLessThanOrEqual(9)
    expect(
      await countRows(
        'SELECT COUNT(*) AS n FROM files WHERE workspace_id = ?',
        account.workspaceId,
      ),
    ).toBe(0)
    console.log(
      `sweep: ${summary.canvases} canvases and ${summary.files} files removed; ` +
        `${meter.roundTrips} round trips, ${meter.rowsRead} rows read ` +
        `(${perItem.toFixed(2)} per canvas or file), ${meter.rowsWritten} rows written`,
    )
  })
})

describe('webhook deliveries', () => {
  it('older than their 30 days are removed by the sweep, the rest kept', async () => {
    const account = await newAccount()
    const hook = await createWebhook(account.key, { url: 'https://hooks.example.com/in' })
    const now = Date.now()
    const day = 24 * HOUR
    const insert = (eventId: string, createdAt: number) =>
      env.DB.prepare(
        `INSERT INTO webhook_deliveries (webhook_id, event_id, type, body, attempts, next_attempt_at,
                                         created_at, delivered_at)
         VALUES (?, ?, 'canvas.deleted', '{}', 1, ?, ?, ?)`,
      ).bind(hook.webhook_id, eventId, createdAt, createdAt, createdAt)
    await env.DB.batch([
      insert('old-1', now - 31 * day),
      insert('old-2', now - 30 * day - 1000),
      insert('recent', now - 29 * day),
    ])
    const summary = await sweep(services(), { now })
    expect(summary.webhook_deliveries).toBeGreaterThanOrEqual(2)
    const left = await env.DB.prepare(
      'SELECT event_id FROM webhook_deliveries WHERE webhook_id = ?',
    )
      .bind(hook.webhook_id)
      .all<{ event_id: string }>()
    expect(left.results.map((r) => r.event_id)).toEqual(['recent'])
  })
})
