import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { readSettings } from '../src/lib/settings'
import { blobKey } from '../src/storage/blobs'
import { bytesOf, call, json, metaOf, newAccount } from './support/api'
import {
  age,
  answerOf,
  canvasCount,
  expectReplay,
  freshKey,
  keyRows,
  withKey,
} from './support/idempotency'
import { countRows, objectsOf } from './support/state'

// The upload flow (presign, PUT to the signed URL, finalize, create) retried at every step, with
// and without Idempotency-Key: a retry never makes a second file, object or canvas, and never
// fails where the first attempt would have gone on to succeed.

async function flow() {
  const account = await newAccount()
  const content = bytesOf(`flow ${crypto.randomUUID()}`)
  const meta = await metaOf(content)
  const post = (path: string, body: unknown, key?: string) =>
    call(path, { method: 'POST', key: account.key, json: body, ...(key ? withKey(key) : {}) })
  const files = () =>
    countRows('SELECT COUNT(*) AS n FROM files WHERE workspace_id = ?', account.workspaceId)
  return { account, content, meta, post, files }
}

describe('the upload flow retried without the header', () => {
  it('presign and finalize twice give one file, one object', async () => {
    const { account, content, meta, post, files } = await flow()
    const [a, b] = await Promise.all([
      post('/v1/upload/presign', meta),
      post('/v1/upload/presign', meta),
    ])
    const [first, second] = [await json(a), await json(b)]
    expect(second.file_id).toBe(first.file_id)
    expect([first.exists, second.exists]).toEqual([false, false])
    const early = await post('/v1/upload/finalize', meta)
    expect([early.status, (await json(early)).error.code]).toEqual([400, 'upload_incomplete'])
    // Either URL stores the bytes; a PUT of stored bytes is refused as S3 refuses it, and the
    // flow goes on to finalize, which checks the bytes.
    expect((await call(second.upload_url, { method: 'PUT', body: content })).status).toBe(200)
    expect((await call(first.upload_url, { method: 'PUT', body: content })).status).toBe(412)
    const done = await Promise.all([
      post('/v1/upload/finalize', meta),
      post('/v1/upload/finalize', meta),
    ])
    const again = await post('/v1/upload/finalize', meta)
    for (const res of [...done, again]) expect(res.status).toBe(200)
    const fin = await Promise.all([...done, again].map((r) => json(r)))
    expect(new Set(fin.map((f) => f.file.file_id))).toEqual(new Set([first.file_id]))
    expect(fin[2].reused).toBe(true)
    expect((await json(await post('/v1/upload/presign', meta))).exists).toBe(true)
    expect(await files()).toBe(1)
    expect(await objectsOf(account.workspaceId)).toEqual([
      { key: blobKey(account.workspaceId, meta.sha256), size: content.byteLength },
    ])
  })
})

describe('the upload flow retried with the header', () => {
  it('each step replays, an early finalize is not kept, one canvas results', async () => {
    const { account, content, meta, post, files } = await flow()
    const [presignKey, finalizeKey, createKey] = [freshKey(), freshKey(), freshKey()]
    const presigned = await post('/v1/upload/presign', meta, presignKey)
    expect(presigned.status).toBe(200)
    const presign = await answerOf(presigned)
    const replayed = await post('/v1/upload/presign', meta, presignKey)
    await expectReplay(replayed, presign)
    const { upload_url, file_id } = JSON.parse(presign.body)

    // Too early: the answer asks for the PUT and a retry, so the key does not keep it.
    const early = await post('/v1/upload/finalize', meta, finalizeKey)
    expect([early.status, (await json(early)).error.code]).toEqual([400, 'upload_incomplete'])
    expect((await call(upload_url, { method: 'PUT', body: content })).status).toBe(200)
    const finalized = await post('/v1/upload/finalize', meta, finalizeKey)
    expect(finalized.status).toBe(200)
    expect(finalized.headers.get('Idempotent-Replayed')).toBeNull()
    const finalize = await answerOf(finalized)
    expect(JSON.parse(finalize.body)).toMatchObject({ file: { file_id }, reused: false })
    await expectReplay(await post('/v1/upload/finalize', meta, finalizeKey), finalize)

    const body = { file_id, title: 'Uploaded', ext: 'txt' }
    const created = await post('/v1/canvases', body, createKey)
    expect(created.status).toBe(201)
    await expectReplay(await post('/v1/canvases', body, createKey), await answerOf(created))
    expect(await canvasCount(account.workspaceId)).toBe(1)
    expect(await files()).toBe(1)
  })

  it("a presign is replayed for half of its URL's life, then signed afresh", async () => {
    const { account, content, meta, post } = await flow()
    const key = freshKey()
    const before = Date.now()
    const first = await json(await post('/v1/upload/presign', meta, key))
    const halfLife = (readSettings(env).uploadUrlTtl * 1000) / 2
    const [row] = await keyRows(account.workspaceId)
    expect(row.expires_at).toBeGreaterThanOrEqual(before + halfLife)
    expect(row.expires_at).toBeLessThanOrEqual(Date.now() + halfLife)
    expect((await call(first.upload_url, { method: 'PUT', body: content })).status).toBe(200)
    await age(account.workspaceId, key, halfLife)
    const res = await post('/v1/upload/presign', meta, key)
    expect(res.status).toBe(200)
    expect(res.headers.get('Idempotent-Replayed')).toBeNull()
    expect(await json(res)).toMatchObject({ file_id: first.file_id, exists: true })
  })
})
