import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { localTarget, presignUrl } from '../src/storage/presign'
import { bytesOf, call, errorOf, json, newAccount, sha256 } from './support/api'

async function presign(key: string, content: Uint8Array, extra: Record<string, unknown> = {}) {
  const meta = {
    sha256: await sha256(content),
    ext: 'txt',
    size: content.byteLength,
    mime: 'text/plain',
    ...extra,
  }
  const res = await call('/v1/upload/presign', { method: 'POST', key, json: meta })
  return { res, meta }
}

describe('presign', () => {
  it('answers the presign response and registers the file as pending', async () => {
    const account = await newAccount()
    const content = bytesOf('presign me')
    const { res, meta } = await presign(account.key, content)
    expect(res.status).toBe(200)
    const body = await json(res)
    expect(body).toEqual({
      file_id: expect.stringMatching(/^[A-Za-z0-9]{20}$/),
      blob_key: `files/${meta.sha256.slice(0, 2)}/${account.workspaceId}/${meta.sha256}`,
      upload_url: expect.stringContaining(`http://canvas.test/_storage/${body.blob_key}?`),
      content_type: 'text/plain; charset=utf-8',
      expires_in: 900,
      exists: false,
      headers: {},
    })
    const url = new URL(body.upload_url)
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256')
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900')
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host')
    const row = await env.DB.prepare('SELECT * FROM files WHERE file_id = ?')
      .bind(body.file_id)
      .first<any>()
    expect(row).toMatchObject({
      status: 'pending',
      sha256: meta.sha256,
      size: content.byteLength,
      workspace_id: account.workspaceId,
    })
    // Presigning again names the same file.
    expect((await json((await presign(account.key, content)).res)).file_id).toBe(body.file_id)
  })

  it('says exists when the workspace already holds the bytes, finalized or not', async () => {
    const account = await newAccount()
    const content = bytesOf('already here')
    const first = await json((await presign(account.key, content)).res)
    expect((await call(first.upload_url, { method: 'PUT', body: content })).status).toBe(200)
    expect((await json((await presign(account.key, content)).res)).exists).toBe(true)
    // Another workspace never learns about it.
    const other = await newAccount()
    const theirs = await json((await presign(other.key, content)).res)
    expect(theirs.exists).toBe(false)
    expect(theirs.file_id).not.toBe(first.file_id)
  })

  it('validates the body', async () => {
    const account = await newAccount()
    const good = { sha256: 'a'.repeat(64), ext: 'txt', size: 1, mime: 'text/plain' }
    const cases: [unknown, string][] = [
      [{ ...good, sha256: 'A'.repeat(64) }, 'sha256: must be 64 lowercase hex characters'],
      [
        { ...good, ext: '.txt' },
        'ext: must be 1 to 16 lowercase letters or digits, without the dot',
      ],
      [
        { ...good, ext: '../x' },
        'ext: must be 1 to 16 lowercase letters or digits, without the dot',
      ],
      [{ ...good, size: -1 }, 'size: must not be negative'],
      [{ ...good, size: 1.5 }, 'size: must be a whole number'],
      [{ ...good, size: '10' }, 'size: Invalid input: expected number, received string'],
      [{ ...good, mime: 'nope' }, 'mime: must be a media type such as text/html'],
      [[], 'Invalid input: expected object, received array'],
    ]
    for (const [body, message] of cases) {
      const res = await call('/v1/upload/presign', { method: 'POST', key: account.key, json: body })
      expect(res.status).toBe(400)
      expect(await json(res)).toEqual(errorOf('invalid_request', message))
    }
  })

  it('413 above MAX_FILE_BYTES', async () => {
    const account = await newAccount()
    const res = await call('/v1/upload/presign', {
      method: 'POST',
      key: account.key,
      json: {
        sha256: 'b'.repeat(64),
        ext: 'bin',
        size: 5368709121,
        mime: 'application/octet-stream',
      },
    })
    expect(res.status).toBe(413)
    expect(await json(res)).toEqual(
      errorOf('payload_too_large', 'size: 5368709121 bytes is over the limit of 5368709120 bytes'),
    )
  })

  it('500 storage_not_configured without R2 credentials or a signing secret', async () => {
    const account = await newAccount()
    const res = await call('/v1/upload/presign', {
      method: 'POST',
      key: account.key,
      json: { sha256: 'c'.repeat(64), ext: 'txt', size: 1, mime: 'text/plain' },
      env: { STORAGE_SIGNING_SECRET: '' },
    })
    expect(res.status).toBe(500)
    expect(await json(res)).toEqual(
      errorOf(
        'storage_not_configured',
        'storage is not configured: set S3_* credentials or STORAGE_SIGNING_SECRET',
      ),
    )
  })

  it('targets R2 when S3 credentials are set', async () => {
    const account = await newAccount()
    const body = await json(
      await call('/v1/upload/presign', {
        method: 'POST',
        key: account.key,
        json: { sha256: 'd'.repeat(64), ext: 'txt', size: 1, mime: 'text/plain' },
        env: {
          S3_ENDPOINT: 'https://acct.r2.cloudflarestorage.com',
          S3_BUCKET: 'canvas-content',
          S3_ACCESS_KEY_ID: 'AKID',
          S3_SECRET_ACCESS_KEY: 'SECRET',
        },
      }),
    )
    expect(body.upload_url).toMatch(
      new RegExp(`^https://acct\\.r2\\.cloudflarestorage\\.com/canvas-content/${body.blob_key}\\?`),
    )
    expect(new URL(body.upload_url).searchParams.get('X-Amz-Credential')).toMatch(
      /^AKID\/\d{8}\/auto\/s3\/aws4_request$/,
    )
    // R2 must refuse an overwrite and other bytes: both conditions are signed into the URL.
    expect(body.headers).toEqual({
      'If-None-Match': '*',
      'x-amz-checksum-sha256': btoa(String.fromCharCode(...new Uint8Array(32).fill(0xdd))),
    })
    expect(new URL(body.upload_url).searchParams.get('X-Amz-SignedHeaders')).toBe(
      'host;if-none-match;x-amz-checksum-sha256',
    )
  })
})

// Presign answers `exists` from the file's row wherever the row can know: the objects below are
// removed or written behind the service's back to tell an answer from the row from one from R2.
describe('where presign learns the bytes are there', () => {
  const R2_ENDPOINT = {
    S3_ENDPOINT: 'https://acct.r2.cloudflarestorage.com',
    S3_BUCKET: 'canvas-content',
    S3_ACCESS_KEY_ID: 'AKID',
    S3_SECRET_ACCESS_KEY: 'SECRET',
  }
  const presignIn = async (key: string, content: Uint8Array, env: Record<string, string> = {}) => {
    const meta = { sha256: await sha256(content), ext: 'txt', size: content.byteLength }
    const json_ = { ...meta, mime: 'text/plain' }
    const res = await call('/v1/upload/presign', { method: 'POST', key, json: json_, env })
    expect(res.status).toBe(200)
    return { body: await json(res), meta: json_ }
  }
  const finalize = (key: string, meta: object, env: Record<string, string> = {}) =>
    call('/v1/upload/finalize', { method: 'POST', key, json: meta, env })
  const uploadedAt = async (fileId: string) =>
    (
      await env.DB.prepare('SELECT uploaded_at FROM files WHERE file_id = ?')
        .bind(fileId)
        .first<{ uploaded_at: number | null }>()
    )?.uploaded_at

  it('locally, from the row: the upload route records the bytes it stores', async () => {
    const account = await newAccount()
    const content = bytesOf('recorded on arrival')
    const { body, meta } = await presignIn(account.key, content)
    expect(await uploadedAt(body.file_id)).toBeNull()
    expect((await call(body.upload_url, { method: 'PUT', body: content })).status).toBe(200)
    expect(await uploadedAt(body.file_id)).toBeGreaterThan(0)
    // Gone behind the service's back: presign still says so (it did not ask R2) ...
    await env.BUCKET.delete(body.blob_key)
    expect((await presignIn(account.key, content)).body.exists).toBe(true)
    // ... until finalize finds them missing and the row stops saying so.
    const early = await finalize(account.key, meta)
    expect((await json(early)).error.code).toBe('upload_incomplete')
    expect(await uploadedAt(body.file_id)).toBeNull()
    const fresh = await presignIn(account.key, content)
    expect(fresh.body).toMatchObject({ file_id: body.file_id, exists: false })
    expect((await call(fresh.body.upload_url, { method: 'PUT', body: content })).status).toBe(200)
    expect((await presignIn(account.key, content)).body.exists).toBe(true)
    expect((await finalize(account.key, meta)).status).toBe(200)
  })

  it('with R2 S3 credentials, asks R2 until it has the bytes, then remembers', async () => {
    const account = await newAccount()
    const content = bytesOf('uploaded straight to R2')
    const { body, meta } = await presignIn(account.key, content, R2_ENDPOINT)
    expect(body.exists).toBe(false)
    // Not yet there: asked again, R2 still says no, and the row records nothing.
    expect((await presignIn(account.key, content, R2_ENDPOINT)).body.exists).toBe(false)
    expect(await uploadedAt(body.file_id)).toBeNull()
    // R2's own endpoint takes the PUT; the Worker never hears of it.
    await env.BUCKET.put(body.blob_key, content)
    expect((await presignIn(account.key, content, R2_ENDPOINT)).body.exists).toBe(true)
    expect(await uploadedAt(body.file_id)).toBeGreaterThan(0)
    await env.BUCKET.delete(body.blob_key)
    expect((await presignIn(account.key, content, R2_ENDPOINT)).body.exists).toBe(true)
    expect((await json(await finalize(account.key, meta, R2_ENDPOINT))).error.code).toBe(
      'upload_incomplete',
    )
    expect((await presignIn(account.key, content, R2_ENDPOINT)).body.exists).toBe(false)
  })

  it('a wrong declared size forgets the bytes along with the object', async () => {
    const account = await newAccount()
    const content = bytesOf('sized wrong')
    const { body, meta } = await presignIn(account.key, content)
    await call(body.upload_url, { method: 'PUT', body: content })
    const fin = await finalize(account.key, { ...meta, size: meta.size + 1 })
    expect((await json(fin)).error.code).toBe('checksum_mismatch')
    expect(await uploadedAt(body.file_id)).toBeNull()
    expect((await presignIn(account.key, content)).body.exists).toBe(false)
  })

  it('bytes stored before their row (a direct upload whose row was lost) are taken at the PUT', async () => {
    const account = await newAccount()
    const content = bytesOf('ahead of the row')
    const hash = await sha256(content)
    const key = `files/${hash.slice(0, 2)}/${account.workspaceId}/${hash}`
    await env.BUCKET.put(key, content, { sha256: hash })
    // The row is new, so no signed URL can have put them there: presign says no without asking.
    const { body, meta } = await presignIn(account.key, content)
    expect(body).toMatchObject({ blob_key: key, exists: false })
    // The PUT finds them: 412, as for a second client, and the row now knows.
    expect((await call(body.upload_url, { method: 'PUT', body: content })).status).toBe(412)
    expect(await uploadedAt(body.file_id)).toBeGreaterThan(0)
    expect((await presignIn(account.key, content)).body.exists).toBe(true)
    expect(await json(await finalize(account.key, meta))).toMatchObject({ reused: false })
  })
})

describe('the local storage PUT', () => {
  it('stores the bytes once and never overwrites', async () => {
    const account = await newAccount()
    const content = bytesOf('write once')
    const body = await json((await presign(account.key, content)).res)
    const put = await call(body.upload_url, { method: 'PUT', body: content })
    expect(put.status).toBe(200)
    const again = await call(body.upload_url, { method: 'PUT', body: content })
    expect(again.status).toBe(412)
    expect(await json(again)).toEqual(
      errorOf('precondition_failed', 'the object exists already and is never overwritten'),
    )
    const object = await env.BUCKET.get(body.blob_key)
    expect(await object!.text()).toBe('write once')
  })

  it('refuses bytes that are not the content named by the key', async () => {
    const account = await newAccount()
    const content = bytesOf('the real thing')
    const body = await json((await presign(account.key, content)).res)
    const put = await call(body.upload_url, { method: 'PUT', body: bytesOf('something else') })
    expect(put.status).toBe(400)
    expect(await json(put)).toEqual(
      errorOf('checksum_mismatch', 'the content does not match the sha256 in its key'),
    )
    expect(await env.BUCKET.head(body.blob_key)).toBeNull()
  })

  it('refuses a tampered, re-targeted or expired signature', async () => {
    const account = await newAccount()
    const content = bytesOf('signed')
    const body = await json((await presign(account.key, content)).res)
    const url = new URL(body.upload_url)
    const tampered = new URL(url)
    tampered.searchParams.set('X-Amz-Expires', '604800')
    const other = new URL(url)
    other.pathname = other.pathname.replace(account.workspaceId, 'someoneelse')
    const badSig = new URL(url)
    badSig.searchParams.set('X-Amz-Signature', '0'.repeat(64))
    for (const target of [tampered, other, badSig]) {
      const res = await call(target.toString(), { method: 'PUT', body: content })
      expect(res.status).toBe(403)
      expect(await json(res)).toEqual(errorOf('forbidden', 'the signature does not match'))
    }
    const target = localTarget('http://canvas.test', env.STORAGE_SIGNING_SECRET)
    const old = await presignUrl(
      target,
      'PUT',
      body.blob_key,
      900,
      {},
      new Date(Date.now() - 3600_000),
    )
    const expired = await call(old, { method: 'PUT', body: content })
    expect(expired.status).toBe(403)
    expect(await json(expired)).toEqual(errorOf('forbidden', 'the signed URL has expired'))
    const otherSecret = await presignUrl(
      localTarget('http://canvas.test', 'guess'),
      'PUT',
      body.blob_key,
      900,
    )
    expect((await call(otherSecret, { method: 'PUT', body: content })).status).toBe(403)
    expect(await env.BUCKET.head(body.blob_key)).toBeNull()
    // The genuine URL still works.
    expect((await call(body.upload_url, { method: 'PUT', body: content })).status).toBe(200)
  })
})

describe('finalize', () => {
  it('verifies the object and marks the file ready; again is reused', async () => {
    const account = await newAccount()
    const content = bytesOf('finalize me')
    const { res, meta } = await presign(account.key, content)
    const body = await json(res)
    const early = await call('/v1/upload/finalize', {
      method: 'POST',
      key: account.key,
      json: meta,
    })
    expect(early.status).toBe(400)
    expect(await json(early)).toEqual(
      errorOf('upload_incomplete', 'the content has not been uploaded to upload_url yet'),
    )

    await call(body.upload_url, { method: 'PUT', body: content })
    const fin = await call('/v1/upload/finalize', {
      method: 'POST',
      key: account.key,
      json: { ...meta, file_id: body.file_id },
    })
    expect(fin.status).toBe(200)
    expect(await json(fin)).toEqual({
      file: {
        file_id: body.file_id,
        sha256: meta.sha256,
        size: content.byteLength,
        mime: 'text/plain',
      },
      reused: false,
    })
    const again = await call('/v1/upload/finalize', {
      method: 'POST',
      key: account.key,
      json: meta,
    })
    expect(await json(again)).toEqual({
      file: {
        file_id: body.file_id,
        sha256: meta.sha256,
        size: content.byteLength,
        mime: 'text/plain',
      },
      reused: true,
    })
    const row = await env.DB.prepare('SELECT status, finalized_at FROM files WHERE file_id = ?')
      .bind(body.file_id)
      .first<any>()
    expect(row.status).toBe('ready')
    expect(row.finalized_at).toBeGreaterThan(0)
  })

  it('a wrong declared size is a checksum_mismatch and the object is deleted', async () => {
    const account = await newAccount()
    const content = bytesOf('size matters')
    const { res, meta } = await presign(account.key, content)
    const body = await json(res)
    await call(body.upload_url, { method: 'PUT', body: content })
    const fin = await call('/v1/upload/finalize', {
      method: 'POST',
      key: account.key,
      json: { ...meta, size: meta.size + 1 },
    })
    expect(fin.status).toBe(400)
    expect(await json(fin)).toEqual(
      errorOf(
        'checksum_mismatch',
        'the uploaded content does not match the declared size and sha256; upload it again',
      ),
    )
    expect(await env.BUCKET.head(body.blob_key)).toBeNull()
    // The next presign offers a fresh upload.
    expect((await json((await presign(account.key, content)).res)).exists).toBe(false)
  })

  it('catches content that differs from its sha256 (an object written behind our back)', async () => {
    const account = await newAccount()
    const content = bytesOf('honest bytes')
    const { res, meta } = await presign(account.key, content)
    const body = await json(res)
    await env.BUCKET.put(body.blob_key, bytesOf('forged bytes'))
    const fin = await call('/v1/upload/finalize', { method: 'POST', key: account.key, json: meta })
    expect(fin.status).toBe(400)
    expect((await json(fin)).error.code).toBe('checksum_mismatch')
    expect(await env.BUCKET.head(body.blob_key)).toBeNull()
  })

  it('a file_id that does not match, or finalize without presign', async () => {
    const account = await newAccount()
    const content = bytesOf('mismatch id')
    const { meta } = await presign(account.key, content)
    const wrong = await call('/v1/upload/finalize', {
      method: 'POST',
      key: account.key,
      json: { ...meta, file_id: 'abc' },
    })
    expect(wrong.status).toBe(400)
    expect(await json(wrong)).toEqual(
      errorOf('invalid_request', 'file_id: does not match the presigned upload of this content'),
    )
    const none = await call('/v1/upload/finalize', {
      method: 'POST',
      key: account.key,
      json: { sha256: 'e'.repeat(64), ext: 'txt', size: 1, mime: 'text/plain' },
    })
    expect(none.status).toBe(400)
    expect(await json(none)).toEqual(
      errorOf('upload_incomplete', 'no presigned upload for this content: call presign first'),
    )
  })
})
