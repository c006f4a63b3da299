import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  presignUrl,
  uploadHeaders,
  verifyPresigned,
  type StorageTarget,
} from '../../src/storage/presign'

// The presigned URLs of R2 mode must be real SigV4: an S3 implementation that checks signatures
// (@20minutes/s3rver) accepts them and refuses tampered or expired ones.
const S3rver = createRequire(import.meta.url)('@20minutes/s3rver')

let server: any
let directory: string
let target: StorageTarget

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'canvas-s3rver-'))
  server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: 'canvas' }],
  })
  const address = await server.run()
  target = {
    base: `http://127.0.0.1:${address.port}/canvas`,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    region: 'us-east-1',
  }
})

afterAll(async () => {
  await server?.close()
  rmSync(directory, { recursive: true, force: true })
})

const key = `files/ab/ws1/ab${'0'.repeat(62)}`
const body = new TextEncoder().encode('hello from a presigned PUT')

describe('SigV4 presigned URLs against s3rver', () => {
  it('a presigned PUT stores the object and a presigned GET reads it with the signed headers', async () => {
    const put = await fetch(await presignUrl(target, 'PUT', key, 900), { method: 'PUT', body })
    expect(put.status).toBe(200)
    const url = await presignUrl(target, 'GET', key, 300, {
      'response-content-type': 'text/plain; charset=utf-8',
      'response-content-disposition': 'attachment; filename="x.txt"',
    })
    const get = await fetch(url)
    expect(get.status).toBe(200)
    expect(get.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(get.headers.get('content-disposition')).toBe('attachment; filename="x.txt"')
    expect(new Uint8Array(await get.arrayBuffer())).toEqual(body)
    // Our own verifier (the local /_storage route) agrees with S3 on the same URL.
    expect(await verifyPresigned('GET', url, target)).toBe('valid')
  })

  it('refuses a tampered URL', async () => {
    const url = new URL(await presignUrl(target, 'PUT', key + '1', 900))
    url.pathname = url.pathname.replace('ws1', 'ws2')
    const res = await fetch(url, { method: 'PUT', body })
    expect(res.status).toBe(403)
    expect(await res.text()).toContain('SignatureDoesNotMatch')
    expect(await verifyPresigned('PUT', url.toString(), target)).toBe('invalid')
  })

  it('refuses a wrong secret', async () => {
    const url = await presignUrl({ ...target, secretAccessKey: 'guess' }, 'PUT', key + '2', 900)
    const res = await fetch(url, { method: 'PUT', body })
    expect(res.status).toBe(403)
    expect(await res.text()).toContain('SignatureDoesNotMatch')
  })

  it('an upload URL for R2 only works with its signed conditions', async () => {
    const remote = { ...target, remote: true }
    const sha = createHash('sha256').update(body).digest('hex')
    const headers = uploadHeaders(remote, sha)
    const url = await presignUrl(remote, 'PUT', key + '4', 900, {}, new Date(), headers)
    const bare = await fetch(url, { method: 'PUT', body })
    expect(bare.status).toBe(403)
    expect(await bare.text()).toContain('SignatureDoesNotMatch')
    const signed = await fetch(url, { method: 'PUT', body, headers })
    expect(signed.status).toBe(200)
  })

  it('refuses an expired URL', async () => {
    const url = await presignUrl(target, 'PUT', key + '3', 900, {}, new Date(Date.now() - 3600_000))
    const res = await fetch(url, { method: 'PUT', body })
    expect(res.status).toBe(403)
    expect(await res.text()).toMatch(/expired/i)
    expect(await verifyPresigned('PUT', url, target)).toBe('expired')
  })
})
