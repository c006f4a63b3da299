import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { readSettings } from '../../src/lib/settings'
import { bytesOf, call, follow, json, newAccount, newCanvas, sha256, upload } from '../support/api'
import { expectIntact } from '../support/integrity'
import { countRows, sweepUntilDone } from '../support/state'

// Requests that race each other: every acknowledged write is kept, versions never skip or repeat,
// one content is one file, and a delete is all or nothing.

describe('concurrent updates', () => {
  it('50 content updates at once give versions 1..51, each file exactly once', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'version 1', { permanent: true })
    const id = canvas.canvas_id
    const texts = Array.from({ length: 50 }, (_, i) => `update ${i} ${crypto.randomUUID()}`)
    const fileIds = await Promise.all(texts.map((t) => upload(account.key, bytesOf(t))))
    // Half by file_id, half as multipart uploads of the bytes themselves.
    const responses = await Promise.all(
      fileIds.map((fileId, i) => {
        if (i % 2 === 0) {
          return call(`/v1/canvases/${id}`, {
            method: 'PATCH',
            key: account.key,
            json: { file_id: fileId },
          })
        }
        const form = new FormData()
        form.append('file', new Blob([texts[i]]), `u${i}.txt`)
        return call(`/v1/canvases/${id}`, { method: 'PATCH', key: account.key, body: form })
      }),
    )
    expect(responses.map((r) => r.status)).toEqual(fileIds.map(() => 200))
    const acknowledged = await Promise.all(responses.map(async (r) => (await json(r)).version))
    expect([...acknowledged].sort((a, b) => a - b)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 2),
    )
    const { versions } = await json(await call(`/v1/canvases/${id}/versions`, { key: account.key }))
    expect(versions.map((v: any) => v.version)).toEqual(
      Array.from({ length: 51 }, (_, i) => 51 - i),
    )
    // Each version holds the bytes of the update that was told that version number.
    for (let i = 0; i < texts.length; i++) {
      const res = await follow(
        await call(`/v1/canvases/${id}/versions/${acknowledged[i]}`, { key: account.key }),
      )
      expect(await res.text()).toBe(texts[i])
    }
    const current = await json(await call(`/v1/canvases/${id}`, { key: account.key }))
    expect(current.version).toBe(51)
  })
})

describe('concurrent uploads of the same content', () => {
  it('give one file: one id from every presign and finalize, one object, one row', async () => {
    const account = await newAccount()
    const content = bytesOf(`same bytes ${crypto.randomUUID()}`)
    const meta = {
      sha256: await sha256(content),
      ext: 'txt',
      size: content.byteLength,
      mime: 'text/plain',
    }
    const presigns = await Promise.all(
      Array.from({ length: 20 }, () =>
        call('/v1/upload/presign', { method: 'POST', key: account.key, json: meta }),
      ),
    )
    expect(presigns.map((r) => r.status)).toEqual(presigns.map(() => 200))
    const bodies = await Promise.all(presigns.map((r) => json(r)))
    const fileId = bodies[0].file_id
    expect(new Set(bodies.map((b) => b.file_id))).toEqual(new Set([fileId]))
    // Every client PUTs at once: the first wins, the others are told the object exists (412).
    const puts = await Promise.all(
      bodies.map((b) => call(b.upload_url, { method: 'PUT', body: content })),
    )
    const statuses = puts.map((r) => r.status).sort()
    expect(statuses.filter((s) => s === 200)).toHaveLength(1)
    expect(statuses.filter((s) => s !== 200)).toEqual(statuses.slice(1).map(() => 412))
    const finals = await Promise.all(
      bodies.map(() =>
        call('/v1/upload/finalize', { method: 'POST', key: account.key, json: meta }),
      ),
    )
    expect(finals.map((r) => r.status)).toEqual(finals.map(() => 200))
    for (const body of await Promise.all(finals.map((r) => json(r)))) {
      expect(body.file).toEqual({
        file_id: fileId,
        sha256: meta.sha256,
        size: meta.size,
        mime: 'text/plain',
      })
    }
    expect(
      await countRows(
        "SELECT COUNT(*) AS n FROM files WHERE workspace_id = ? AND sha256 = ? AND status = 'ready'",
        account.workspaceId,
        meta.sha256,
      ),
    ).toBe(1)
    const listed = await env.BUCKET.list({
      prefix: `files/${meta.sha256.slice(0, 2)}/${account.workspaceId}/`,
    })
    expect(listed.objects.map((o) => o.key)).toEqual([bodies[0].blob_key])
  })
})

describe('a delete racing updates and share downloads', () => {
  it('leaves no half-deleted canvas, and the sweep tidies what it left unreferenced', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'about to go', { permanent: true })
    const id = canvas.canvas_id
    const share = await json(
      await call(`/v1/canvases/${id}/shares`, { method: 'POST', key: account.key }),
    )
    const fileIds = await Promise.all(
      Array.from({ length: 10 }, (_, i) => upload(account.key, bytesOf(`race ${i} ${id}`))),
    )
    const updates = fileIds.map((fileId) =>
      call(`/v1/canvases/${id}`, { method: 'PATCH', key: account.key, json: { file_id: fileId } }),
    )
    const downloads = Array.from({ length: 10 }, () => call(`/share/${share.token}/content`))
    const reads = Array.from({ length: 5 }, () => call(`/v1/canvases/${id}`, { key: account.key }))
    const del = call(`/v1/canvases/${id}`, { method: 'DELETE', key: account.key })
    const [deleted, ...rest] = await Promise.all([del, ...updates, ...downloads, ...reads])
    expect(deleted.status).toBe(200)
    for (const res of rest) expect([200, 302, 404]).toContain(res.status)
    const served = (await Promise.all(downloads)).filter((r) => r.status === 302)

    // The canvas is gone from every read at once; its rows stay whole until the sweep.
    await expectIntact(account.workspaceId, 'after the delete')
    const link = await env.DB.prepare('SELECT view_count FROM share_links WHERE token = ?')
      .bind(share.token)
      .first<{ view_count: number }>()
    // Every download that was served was counted, none that was refused.
    expect(link).not.toBeNull()
    expect(link!.view_count).toBe(served.length)
    expect((await call(`/v1/canvases/${id}`, { key: account.key })).status).toBe(404)
    expect((await call(`/share/${share.token}/content`)).status).toBe(404)
    // Each signed URL handed out before the delete still names stored bytes until the sweep.
    for (const res of served) expect((await follow(res)).status).toBe(200)

    // Past the grace period, the sweep removes the canvas with its versions and links, and the
    // files nothing references, rows and objects.
    await sweepUntilDone(Date.now() + (readSettings(env).uploadUrlTtl + 7200) * 1000)
    expect(await countRows('SELECT COUNT(*) AS n FROM canvases WHERE canvas_id = ?', id)).toBe(0)
    expect(await countRows('SELECT COUNT(*) AS n FROM versions WHERE canvas_id = ?', id)).toBe(0)
    expect(
      await countRows('SELECT COUNT(*) AS n FROM share_links WHERE token = ?', share.token),
    ).toBe(0)
    expect((await call(`/share/${share.token}/content`)).status).toBe(404)
    expect(
      await countRows(
        'SELECT COUNT(*) AS n FROM files WHERE workspace_id = ?',
        account.workspaceId,
      ),
    ).toBe(0)
    const left = await env.BUCKET.list({ prefix: 'files/' })
    expect(left.objects.filter((o) => o.key.includes(account.workspaceId))).toEqual([])
  })
})
