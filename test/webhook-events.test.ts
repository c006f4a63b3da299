import { describe, expect, it } from 'vitest'
import { bytesOf, call, json, newAccount, newCanvas, upload } from './support/api'
import { createWebhook, eventually, hook, received } from './support/webhooks'

// The events writes announce, end to end through the real queue and its consumer (Miniflare's) to
// the receiver (docs/comments-and-webhooks.md): a version published, a canvas deleted, a share link
// used up.

const bodiesAt = async (name: string) =>
  (await received(name)).map((r) => JSON.parse(r.body) as { id: string; type: string; data: any })

describe('events', () => {
  it('a new canvas and a new version each send canvas.version_created', async () => {
    const account = await newAccount()
    const place = hook()
    await createWebhook(account.key, { url: place.url, events: ['canvas.version_created'] })
    const canvas = await newCanvas(account.key, 'first words', { title: 'Plan' })
    const fileId = await upload(account.key, bytesOf('second words'))
    const updated = await json(
      await call(`/v1/canvases/${canvas.canvas_id}`, {
        method: 'PATCH',
        key: account.key,
        json: { file_id: fileId, ext: 'txt' },
      }),
    )
    // A change of title alone makes no version, and sends nothing.
    await call(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'PATCH',
      key: account.key,
      json: { title: 'Renamed' },
    })
    const bodies = await eventually(
      'two deliveries',
      () => bodiesAt(place.name),
      (b) => b.length >= 2,
    )
    const { versions } = await json(
      await call(`/v1/canvases/${canvas.canvas_id}/versions`, { key: account.key }),
    )
    const byVersion = bodies.sort((a, b) => a.data.version.version - b.data.version.version)
    expect(byVersion.map((b) => b.type)).toEqual([
      'canvas.version_created',
      'canvas.version_created',
    ])
    // Each names who caused it: here the account's API key.
    const actor = { kind: 'key', name: expect.any(String), key_id: expect.any(String) }
    expect(byVersion[0].data).toEqual({ canvas, version: versions[1], actor })
    expect(byVersion[1].data).toEqual({ canvas: updated, version: versions[0], actor })
    expect(byVersion[0].id).not.toBe(byVersion[1].id)
    expect(await bodiesAt(place.name)).toHaveLength(2)
  })

  it('deleting a canvas sends canvas.deleted with its id', async () => {
    const account = await newAccount()
    const place = hook()
    const webhook = await createWebhook(account.key, {
      url: place.url,
      events: ['canvas.deleted'],
    })
    const canvas = await newCanvas(account.key)
    await call(`/v1/canvases/${canvas.canvas_id}`, { method: 'DELETE', key: account.key })
    const [body] = await eventually(
      'a delivery',
      () => bodiesAt(place.name),
      (b) => b.length > 0,
    )
    expect(body).toMatchObject({ type: 'canvas.deleted', data: { canvas_id: canvas.canvas_id } })
    const { deliveries } = await eventually(
      'delivered in the log',
      async () =>
        json(await call(`/v1/webhooks/${webhook.webhook_id}/deliveries`, { key: account.key })),
      (log) => log.deliveries[0]?.delivered_at != null,
    )
    expect(deliveries).toEqual([
      expect.objectContaining({ event_id: body.id, attempts: 1, last_status: 200 }),
    ])
  })

  it('the view that uses up a link sends share.exhausted, once', async () => {
    const account = await newAccount()
    const place = hook()
    await createWebhook(account.key, { url: place.url, events: ['share.exhausted'] })
    const canvas = await newCanvas(account.key)
    const share = await json(
      await call(`/v1/canvases/${canvas.canvas_id}/shares`, {
        method: 'POST',
        key: account.key,
        json: { max_views: 2 },
      }),
    )
    expect((await call(`/share/${share.token}/content`)).status).toBe(302)
    expect((await call(`/share/${share.token}/content`)).status).toBe(302)
    expect((await call(`/share/${share.token}/content`)).status).toBe(410)
    const [body] = await eventually(
      'a delivery',
      () => bodiesAt(place.name),
      (b) => b.length > 0,
    )
    expect(body).toMatchObject({
      type: 'share.exhausted',
      data: {
        canvas_id: canvas.canvas_id,
        share: { ...share, view_count: 2, max_views: 2 },
      },
    })
    // Another link of the same canvas, still open, and the used-up one asked again: no more.
    const open = await json(
      await call(`/v1/canvases/${canvas.canvas_id}/shares`, {
        method: 'POST',
        key: account.key,
        json: { max_views: 5 },
      }),
    )
    expect((await call(`/share/${open.token}/content`)).status).toBe(302)
    const marker = hook()
    await createWebhook(account.key, { url: marker.url, events: ['canvas.deleted'] })
    await call(`/v1/canvases/${(await newCanvas(account.key)).canvas_id}`, {
      method: 'DELETE',
      key: account.key,
    })
    // Events are handled in batches: once a later one has arrived, an earlier one would have.
    await eventually(
      'the later event',
      () => bodiesAt(marker.name),
      (b) => b.length > 0,
    )
    expect(await bodiesAt(place.name)).toHaveLength(1)
  })
})
