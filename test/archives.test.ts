import { env } from 'cloudflare:test'
import { strFromU8, unzipSync } from 'fflate'
import { describe, expect, it } from 'vitest'
import { sweep } from '../src/domain/sweep'
import {
  bytesOf,
  call,
  errorOf,
  json,
  newAccount,
  sha256,
  upload,
  type Account,
} from './support/api'
import { realServices } from './support/state'

// A version's archive is made once, by its first download, and stored: every later download is
// the stored object, so what a visitor can make the Worker do is bounded by the bytes stored, not
// by how often they ask; and a visitor's archive downloads come out of a budget per client.

async function site(account: Account, items: number, text = 'one file, many paths') {
  const fileId = await upload(account.key, bytesOf(text))
  const res = await call('/v1/canvases', {
    method: 'POST',
    key: account.key,
    json: {
      title: 'Many',
      permanent: true,
      items: Array.from({ length: items }, (_, i) => ({ path: `copy${i}.txt`, file_id: fileId })),
    },
  })
  expect(res.status).toBe(201)
  return (await json(res)).canvas_id as string
}

const archiveOf = (account: Account, id: string) =>
  call(`/v1/canvases/${id}/versions/1/archive`, { key: account.key })

const row = (id: string) =>
  env.DB.prepare('SELECT status, size, blob_key FROM archives WHERE canvas_id = ? AND version = 1')
    .bind(id)
    .first<{ status: string; size: number | null; blob_key: string }>()

/** The file the site's items all point to, removed from storage behind the service's back. */
async function removeContent(account: Account) {
  const files = await env.DB.prepare('SELECT blob_key FROM files WHERE workspace_id = ?')
    .bind(account.workspaceId)
    .all<{ blob_key: string }>()
  await env.BUCKET.delete(files.results.map((f) => f.blob_key))
}

describe('a version’s archive', () => {
  it('is made by the first download and stored; later ones are the stored object', async () => {
    const account = await newAccount()
    const id = await site(account, 30)
    const first = await archiveOf(account, id)
    expect(first.status).toBe(200)
    const bytes = new Uint8Array(await first.arrayBuffer())
    expect(Object.keys(unzipSync(bytes))).toHaveLength(30)
    expect(await row(id)).toEqual({
      status: 'ready',
      size: bytes.byteLength,
      blob_key: `archives/${id}/1.zip`,
    })
    const object = await env.BUCKET.get(`archives/${id}/1.zip`)
    expect(await sha256(new Uint8Array(await object!.arrayBuffer()))).toBe(await sha256(bytes))
    // With the content itself gone from storage, only a stored archive can still answer whole.
    await removeContent(account)
    for (let i = 0; i < 3; i++) {
      const again = await archiveOf(account, id)
      expect(again.status).toBe(200)
      expect(again.headers.get('Content-Length')).toBe(String(bytes.byteLength))
      expect(again.headers.get('Content-Disposition')).toMatch(/filename="Many-v1.zip"/)
      expect(await sha256(new Uint8Array(await again.arrayBuffer()))).toBe(await sha256(bytes))
    }
  })

  it('is stored at its length known in advance, whatever the names', async () => {
    const account = await newAccount()
    const text = await upload(account.key, bytesOf('héllo'))
    const empty = await upload(account.key, new Uint8Array(0))
    const res = await call('/v1/canvases', {
      method: 'POST',
      key: account.key,
      json: {
        title: 'Names',
        items: [
          { path: 'index.html', file_id: text },
          { path: 'é/ü.txt', file_id: text },
          { path: '日本/語.md', file_id: empty },
          { path: '\u{1F600}.txt', file_id: text },
        ],
      },
    })
    const id = (await json(res)).canvas_id
    const bytes = new Uint8Array(await (await archiveOf(account, id)).arrayBuffer())
    expect(Object.keys(unzipSync(bytes)).sort()).toEqual(
      ['index.html', 'é/ü.txt', '日本/語.md', '\u{1F600}.txt'].sort(),
    )
    expect(await row(id)).toMatchObject({ status: 'ready', size: bytes.byteLength })
    expect((await env.BUCKET.head(`archives/${id}/1.zip`))!.size).toBe(bytes.byteLength)
  })

  it('a download given up half way stores nothing; the next one makes it whole', async () => {
    const account = await newAccount()
    const id = await site(account, 400, 'x'.repeat(40_000))
    const first = await archiveOf(account, id)
    const reader = first.body!.getReader()
    await reader.read()
    await reader.cancel()
    await expect.poll(() => row(id)).toBeNull()
    expect(await env.BUCKET.head(`archives/${id}/1.zip`)).toBeNull()
    const whole = await archiveOf(account, id)
    const files = unzipSync(new Uint8Array(await whole.arrayBuffer()))
    expect(Object.keys(files)).toHaveLength(400)
    expect((await row(id))!.status).toBe('ready')
  })

  it('while another download makes it, a download makes its own and stores nothing', async () => {
    const account = await newAccount()
    const id = await site(account, 5)
    const now = Date.now()
    await env.DB.prepare(
      "INSERT INTO archives (canvas_id, version, blob_key, size, status, created_at) VALUES (?, 1, ?, NULL, 'building', ?)",
    )
      .bind(id, `archives/${id}/1.zip`, now)
      .run()
    const res = await archiveOf(account, id)
    expect(Object.keys(unzipSync(new Uint8Array(await res.arrayBuffer())))).toHaveLength(5)
    expect(await row(id)).toMatchObject({ status: 'building', size: null })
    expect(await env.BUCKET.head(`archives/${id}/1.zip`)).toBeNull()
    // A claim left by a download that died is taken over once it is stale.
    await env.DB.prepare('UPDATE archives SET created_at = ? WHERE canvas_id = ?')
      .bind(now - 16 * 60_000, id)
      .run()
    await (await archiveOf(account, id)).arrayBuffer()
    expect((await row(id))!.status).toBe('ready')
  })

  it('is made again when its stored object has gone missing', async () => {
    const account = await newAccount()
    const id = await site(account, 3)
    const bytes = new Uint8Array(await (await archiveOf(account, id)).arrayBuffer())
    await env.BUCKET.delete(`archives/${id}/1.zip`)
    const again = await archiveOf(account, id)
    expect(await sha256(new Uint8Array(await again.arrayBuffer()))).toBe(await sha256(bytes))
    expect(await env.BUCKET.head(`archives/${id}/1.zip`)).not.toBeNull()
    expect((await row(id))!.status).toBe('ready')
  })

  it('goes with its canvas: the sweep removes the object and its row', async () => {
    const account = await newAccount()
    const id = await site(account, 3)
    await (await archiveOf(account, id)).arrayBuffer()
    expect(await env.BUCKET.head(`archives/${id}/1.zip`)).not.toBeNull()
    await call(`/v1/canvases/${id}`, { method: 'DELETE', key: account.key })
    const svc = realServices()
    const summary = await sweep(svc, { now: Date.now() + 1000 })
    expect(summary.objects).toBeGreaterThanOrEqual(1)
    expect(await env.BUCKET.head(`archives/${id}/1.zip`)).toBeNull()
    expect(await row(id)).toBeNull()
  })
})

describe('archive downloads of visitors', () => {
  async function publicSite(items: number) {
    const account = await newAccount()
    const id = await site(account, items, 'y'.repeat(1000))
    const patch = await call(`/v1/canvases/${id}`, {
      method: 'PATCH',
      key: account.key,
      json: { visibility: 'public' },
    })
    expect(patch.status).toBe(200)
    return { account, id }
  }

  it('come out of a budget per client and hour: past it, 429 with Retry-After', async () => {
    const { account, id } = await publicSite(10)
    // Ten items of 1,000 bytes: a zip of a little over 10 KB.
    const budget = { PUBLIC_ARCHIVE_BYTES_PER_HOUR: '25000' }
    const visit = (ip: string) => call(`/c/${id}/download`, { ip, env: budget })
    const first = await visit('203.0.113.7')
    expect(first.status).toBe(200)
    await first.arrayBuffer()
    const second = await visit('203.0.113.7')
    expect(second.status).toBe(200)
    await second.arrayBuffer()
    const third = await visit('203.0.113.7')
    expect(third.status).toBe(429)
    const retry = Number(third.headers.get('Retry-After'))
    expect(retry).toBeGreaterThan(0)
    expect(retry).toBeLessThanOrEqual(3600)
    expect(await third.text()).toContain('Downloads of archives from this address are limited')
    // Another client has its own budget; the owner has none.
    expect((await visit('198.51.100.2')).status).toBe(200)
    const owned = await call(`/c/${id}/download`, {
      cookie: account.cookie,
      env: budget,
      ip: '203.0.113.7',
    })
    expect(owned.status).toBe(200)
    const stored = await env.DB.prepare('SELECT client FROM download_budgets').all<{
      client: string
    }>()
    expect(stored.results.map((r) => r.client).join()).not.toContain('203.0.113.7')
  })

  it('an archive larger than the whole budget is refused outright, sending nothing', async () => {
    const { id } = await publicSite(10)
    const res = await call(`/c/${id}/download`, {
      ip: '203.0.113.9',
      env: { PUBLIC_ARCHIVE_BYTES_PER_HOUR: '5000' },
    })
    expect(res.status).toBe(413)
    expect(await res.text()).toContain('more than a visitor may download in an hour')
  })

  it('the case of the review: many paths to one file cost one build, then storage alone', async () => {
    const { account, id } = await publicSite(200)
    const first = await call(`/c/${id}/download`, { ip: '192.0.2.1' })
    const bytes = new Uint8Array(await first.arrayBuffer())
    expect(Object.keys(unzipSync(bytes))).toHaveLength(200)
    await removeContent(account)
    for (let i = 0; i < 9; i++) {
      const again = await call(`/c/${id}/download`, { ip: '192.0.2.1' })
      expect(await sha256(new Uint8Array(await again.arrayBuffer()))).toBe(await sha256(bytes))
    }
    expect(strFromU8(unzipSync(bytes)['copy0.txt'])).toBe('y'.repeat(1000))
  })
})

describe('errors', () => {
  it('a refused archive says why in the error body', async () => {
    const other = await newAccount()
    const owner = await newAccount()
    const id = await site(owner, 2)
    const res = await archiveOf(other, id)
    expect(res.status).toBe(404)
    expect(await json(res)).toEqual(errorOf('canvas_not_found', 'canvas not found'))
  })
})
