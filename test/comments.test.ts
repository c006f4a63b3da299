import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { MAX_COMMENTS, MAX_REPLIES } from '../src/domain/comments/comments'
import {
  bytesOf,
  call,
  errorOf,
  json,
  newAccount,
  newCanvas,
  newKey,
  upload,
  type Account,
} from './support/api'

// Comments through the API (docs/comments-and-webhooks.md): made on a version with an anchor or
// none, replied to one level deep, resolved and reopened, listed by status and version, deleted by
// the owner; each workspace sees only its own, read keys only read, and bad input changes nothing.

const TIME = expect.stringMatching(/^\d{4}-\d\d-\d\dT/)

async function commentsOf(account: Account, canvasId: string, query = '') {
  const res = await call(`/v1/canvases/${canvasId}/comments${query}`, { key: account.key })
  expect(res.status).toBe(200)
  return (await json(res)).comments as any[]
}

function post(key: string, path: string, body?: unknown) {
  return call(path, { method: 'POST', key, ...(body === undefined ? {} : { json: body }) })
}

async function setup() {
  const account = await newAccount()
  const canvas = await newCanvas(account.key, '# Plan\n\nShip it on Friday.', {
    title: 'Plan',
    ext: 'md',
  })
  const base = `/v1/canvases/${canvas.canvas_id}/comments`
  return { account, canvas, base }
}

describe('comments', () => {
  it('a comment anchored to a quote, a point or nothing, with its author and version', async () => {
    const { account, canvas, base } = await setup()
    const quote = { quote: { exact: 'on Friday', prefix: 'Ship it ', suffix: '.' } }
    const res = await post(account.key, base, { body: 'Why *Friday*?', anchor: quote })
    expect(res.status).toBe(201)
    const made = await json(res)
    expect(made).toEqual({
      comment_id: expect.stringMatching(/^[A-Za-z0-9]+$/),
      canvas_id: canvas.canvas_id,
      version: 1,
      anchor: quote,
      body: 'Why *Friday*?',
      author: { name: expect.any(String), kind: 'member' },
      status: 'open',
      created_at: TIME,
      resolved_at: null,
      replies: [],
    })
    const point = await json(
      await post(account.key, base, { body: 'This corner', anchor: { point: { x: 0, y: 1 } } }),
    )
    expect(point.anchor).toEqual({ point: { x: 0, y: 1 } })
    const whole = await json(await post(account.key, base, { body: 'Overall fine', anchor: null }))
    expect(whole.anchor).toBeNull()
    const listed = await commentsOf(account, canvas.canvas_id)
    expect(listed.map((c) => c.comment_id)).toEqual([
      made.comment_id,
      point.comment_id,
      whole.comment_id,
    ])
    expect(listed[0]).toEqual(made)
  })

  it('the author is the key’s name', async () => {
    const { account, base } = await setup()
    const made = await json(await post(account.key, base, { body: 'Named' }))
    const me = await json(await call('/v1/me', { key: account.key }))
    expect(made.author).toEqual({ name: me.key.name, kind: 'member' })
  })

  it('replies one level deep, in order, within their comment', async () => {
    const { account, canvas, base } = await setup()
    const first = await json(await post(account.key, base, { body: 'First' }))
    const r1 = await post(account.key, `${base}/${first.comment_id}/replies`, { body: 'One' })
    expect(r1.status).toBe(201)
    const reply = await json(r1)
    expect(reply).toEqual({
      reply_id: expect.any(String),
      body: 'One',
      author: { name: expect.any(String), kind: 'member' },
      created_at: TIME,
    })
    await post(account.key, `${base}/${first.comment_id}/replies`, { body: 'Two' })
    const [listed] = await commentsOf(account, canvas.canvas_id)
    expect(listed.replies.map((r: any) => r.body)).toEqual(['One', 'Two'])
    // A reply is not a comment: it takes no replies and cannot be resolved.
    const nested = await post(account.key, `${base}/${reply.reply_id}/replies`, { body: 'Deep' })
    expect(nested.status).toBe(404)
    expect(await json(nested)).toEqual(errorOf('comment_not_found', 'comment not found'))
    expect((await post(account.key, `${base}/${reply.reply_id}/resolve`)).status).toBe(404)
    expect(await commentsOf(account, canvas.canvas_id)).toHaveLength(1)
  })

  it('resolves and reopens; the list shows open by default, resolved or all when asked', async () => {
    const { account, canvas, base } = await setup()
    const a = await json(await post(account.key, base, { body: 'A' }))
    const b = await json(await post(account.key, base, { body: 'B' }))
    const resolved = await post(account.key, `${base}/${a.comment_id}/resolve`)
    expect(resolved.status).toBe(200)
    const body = await json(resolved)
    expect(body).toMatchObject({ comment_id: a.comment_id, status: 'resolved', resolved_at: TIME })
    // Resolving again keeps the moment it was first resolved.
    const again = await json(await post(account.key, `${base}/${a.comment_id}/resolve`))
    expect(again.resolved_at).toBe(body.resolved_at)
    const ids = async (q: string) =>
      (await commentsOf(account, canvas.canvas_id, q)).map((c) => c.comment_id)
    expect(await ids('')).toEqual([b.comment_id])
    expect(await ids('?status=open')).toEqual([b.comment_id])
    expect(await ids('?status=resolved')).toEqual([a.comment_id])
    expect(await ids('?status=all')).toEqual([a.comment_id, b.comment_id])
    const reopened = await json(await post(account.key, `${base}/${a.comment_id}/reopen`))
    expect(reopened).toMatchObject({ status: 'open', resolved_at: null })
    expect(await ids('')).toEqual([a.comment_id, b.comment_id])
    const bad = await call(`${base}?status=closed`, { key: account.key })
    expect(bad.status).toBe(400)
    expect(await json(bad)).toEqual(errorOf('invalid_request', /^status: /))
  })

  it('belongs to the version it was made on, and stays listed on later versions', async () => {
    const { account, canvas, base } = await setup()
    const onOne = await json(await post(account.key, base, { body: 'On one' }))
    await call(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'PATCH',
      key: account.key,
      json: { file_id: await upload(account.key, bytesOf('# Plan\n\nShip it on Monday.')) },
    })
    const onTwo = await json(await post(account.key, base, { body: 'On two' }))
    expect([onOne.version, onTwo.version]).toEqual([1, 2])
    const older = await json(await post(account.key, base, { body: 'Back on one', version: 1 }))
    expect(older.version).toBe(1)
    const ids = async (q: string) =>
      (await commentsOf(account, canvas.canvas_id, q)).map((c) => c.body)
    expect(await ids('')).toEqual(['On one', 'On two', 'Back on one'])
    expect(await ids('?version=1')).toEqual(['On one', 'Back on one'])
    expect(await ids('?version=2')).toEqual(['On two'])
    const missing = await post(account.key, base, { body: 'Nowhere', version: 9 })
    expect(missing.status).toBe(404)
    expect(await json(missing)).toEqual(
      errorOf('version_not_found', 'version: canvas has no version 9'),
    )
  })

  it('the owner deletes a reply, or a comment with its replies', async () => {
    const { account, canvas, base } = await setup()
    const c = await json(await post(account.key, base, { body: 'Doomed' }))
    const r = await json(await post(account.key, `${base}/${c.comment_id}/replies`, { body: 'R' }))
    const keep = await json(
      await post(account.key, `${base}/${c.comment_id}/replies`, { body: 'K' }),
    )
    const del = (path: string) => call(path, { method: 'DELETE', key: account.key })
    const gone = await del(`${base}/${c.comment_id}/replies/${r.reply_id}`)
    expect(gone.status).toBe(200)
    expect(await json(gone)).toEqual({ success: true })
    const [listed] = await commentsOf(account, canvas.canvas_id)
    expect(listed.replies.map((x: any) => x.reply_id)).toEqual([keep.reply_id])
    expect((await del(`${base}/${c.comment_id}/replies/${r.reply_id}`)).status).toBe(404)
    // A reply is deleted under its own comment only.
    const other = await json(await post(account.key, base, { body: 'Other' }))
    expect((await del(`${base}/${other.comment_id}/replies/${keep.reply_id}`)).status).toBe(404)
    expect((await del(`${base}/${c.comment_id}`)).status).toBe(200)
    expect((await del(`${base}/${c.comment_id}`)).status).toBe(404)
    expect((await commentsOf(account, canvas.canvas_id, '?status=all')).map((x) => x.body)).toEqual(
      ['Other'],
    )
    // The reply went with its comment: it cannot be deleted, nor found under another.
    expect((await del(`${base}/${c.comment_id}/replies/${keep.reply_id}`)).status).toBe(404)
  })

  it('each workspace sees and changes only its own', async () => {
    const { account, base } = await setup()
    const mine = await json(await post(account.key, base, { body: 'Private' }))
    const stranger = await newAccount()
    const notFound = errorOf('canvas_not_found', 'canvas not found')
    for (const res of [
      await call(base, { key: stranger.key }),
      await post(stranger.key, base, { body: 'Intrusion' }),
      await post(stranger.key, `${base}/${mine.comment_id}/replies`, { body: 'Intrusion' }),
      await post(stranger.key, `${base}/${mine.comment_id}/resolve`),
      await call(`${base}/${mine.comment_id}`, { method: 'DELETE', key: stranger.key }),
    ]) {
      expect(res.status).toBe(404)
      expect(await json(res)).toEqual(notFound)
    }
    // A comment of another canvas is not found under this one.
    const theirs = await newCanvas(stranger.key, 'theirs')
    const theirBase = `/v1/canvases/${theirs.canvas_id}/comments`
    const their = await json(await post(stranger.key, theirBase, { body: 'Theirs' }))
    const crossed = await post(account.key, `${base}/${their.comment_id}/resolve`)
    expect(crossed.status).toBe(404)
    expect(await json(crossed)).toEqual(errorOf('comment_not_found', 'comment not found'))
    expect((await commentsOf(stranger, theirs.canvas_id))[0].status).toBe('open')
  })

  it('a read key lists; only a write key changes', async () => {
    const { account, base } = await setup()
    const made = await json(await post(account.key, base, { body: 'Hello' }))
    const reader = await newKey(account.cookie, ['read'])
    expect((await call(base, { key: reader })).status).toBe(200)
    for (const res of [
      await post(reader, base, { body: 'No' }),
      await post(reader, `${base}/${made.comment_id}/replies`, { body: 'No' }),
      await post(reader, `${base}/${made.comment_id}/resolve`),
      await call(`${base}/${made.comment_id}`, { method: 'DELETE', key: reader }),
    ]) {
      expect(res.status).toBe(403)
    }
    expect((await commentsOf(account, made.canvas_id)).map((c) => c.status)).toEqual(['open'])
  })

  it('refuses bad bodies and anchors, saying which field, and stores nothing', async () => {
    const { account, canvas, base } = await setup()
    const cases: [unknown, RegExp][] = [
      [{}, /^body: /],
      [{ body: '' }, /^body: must not be empty/],
      [{ body: 'x'.repeat(10_001) }, /^body: must be at most 10000/],
      [{ body: 'half \ud800 a pair' }, /^body: must not contain unpaired surrogates/],
      [{ body: 'ok', anchor: { quote: { exact: '' } } }, /^anchor/],
      [{ body: 'ok', anchor: { quote: { exact: 'x'.repeat(2001) } } }, /^anchor/],
      [{ body: 'ok', anchor: { point: { x: 1.5, y: 0 } } }, /^anchor/],
      [{ body: 'ok', anchor: { point: { x: 0.5 } } }, /^anchor/],
      [{ body: 'ok', anchor: { point: { x: 0, y: 0 }, quote: { exact: 'a' } } }, /^anchor/],
      [{ body: 'ok', anchor: 'everywhere' }, /^anchor/],
      [{ body: 'ok', version: 0 }, /^version: /],
      [{ body: 'ok', status: 'resolved' }, /./],
      [{ body: 12 }, /^body: /],
    ]
    for (const [body, message] of cases) {
      const res = await post(account.key, base, body)
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400)
      expect(await json(res)).toEqual(errorOf('invalid_request', message))
    }
    expect(await commentsOf(account, canvas.canvas_id, '?status=all')).toEqual([])
    // An exact length of 10,000 characters is a body.
    expect((await post(account.key, base, { body: 'y'.repeat(10_000) })).status).toBe(201)
  })

  it('unknown ids are not found, whatever they look like', async () => {
    const { account, canvas, base } = await setup()
    for (const id of ['nope', 'a'.repeat(200), 'x%00y', 'x-y']) {
      const res = await post(account.key, `${base}/${id}/resolve`)
      expect(res.status, id).toBe(404)
      expect(await json(res)).toEqual(errorOf('comment_not_found', 'comment not found'))
    }
    const noCanvas = await call('/v1/canvases/nope/comments', { key: account.key })
    expect(await json(noCanvas)).toEqual(errorOf('canvas_not_found', 'canvas not found'))
    expect(canvas.canvas_id).toBeTruthy()
  })

  it('a deleted canvas takes its comments with it', async () => {
    const { account, canvas, base } = await setup()
    await post(account.key, base, { body: 'Soon gone' })
    await call(`/v1/canvases/${canvas.canvas_id}`, { method: 'DELETE', key: account.key })
    const res = await call(base, { key: account.key })
    expect(res.status).toBe(404)
    expect(await json(res)).toEqual(errorOf('canvas_not_found', 'canvas not found'))
  })

  it('the counts the limits are checked on follow every change, cascades included', async () => {
    const { account, canvas, base } = await setup()
    const counts = async () =>
      env.DB.prepare(
        `SELECT comment_count AS n, (SELECT group_concat(reply_count) FROM (SELECT reply_count
           FROM comments WHERE canvas_id = ?1 AND parent_id IS NULL ORDER BY created_at)) AS replies
         FROM canvases WHERE canvas_id = ?1`,
      )
        .bind(canvas.canvas_id)
        .first<{ n: number; replies: string | null }>()
    const a = await json(await post(account.key, base, { body: 'A' }))
    const b = await json(await post(account.key, base, { body: 'B' }))
    for (const body of ['1', '2', '3']) {
      await post(account.key, `${base}/${a.comment_id}/replies`, { body })
    }
    expect(await counts()).toEqual({ n: 2, replies: '3,0' })
    const [listed] = await commentsOf(account, canvas.canvas_id)
    const del = (path: string) => call(path, { method: 'DELETE', key: account.key })
    await del(`${base}/${a.comment_id}/replies/${listed.replies[0].reply_id}`)
    expect(await counts()).toEqual({ n: 2, replies: '2,0' })
    await del(`${base}/${a.comment_id}`)
    expect(await counts()).toEqual({ n: 1, replies: '0' })
    expect(b.comment_id).toBeTruthy()
  })

  it(`a canvas holds ${MAX_COMMENTS} comments and a comment ${MAX_REPLIES} replies`, async () => {
    const { account, canvas, base } = await setup()
    const first = await json(await post(account.key, base, { body: 'First' }))
    // Brought to the edge directly: hundreds of requests would say nothing more.
    await env.DB.batch([
      env.DB.prepare('UPDATE canvases SET comment_count = ? WHERE canvas_id = ?').bind(
        MAX_COMMENTS - 1,
        canvas.canvas_id,
      ),
      env.DB.prepare('UPDATE comments SET reply_count = ? WHERE comment_id = ?').bind(
        MAX_REPLIES - 1,
        first.comment_id,
      ),
    ])
    expect((await post(account.key, base, { body: 'The last' })).status).toBe(201)
    const full = await post(account.key, base, { body: 'One too many' })
    expect(full.status).toBe(409)
    expect(await json(full)).toEqual(
      errorOf('conflict', `a canvas may hold at most ${MAX_COMMENTS} comments; delete some first`),
    )
    const replies = `${base}/${first.comment_id}/replies`
    expect((await post(account.key, replies, { body: 'Last reply' })).status).toBe(201)
    const tooMany = await post(account.key, replies, { body: 'One more' })
    expect(tooMany.status).toBe(409)
    expect((await json(tooMany)).error.message).toMatch(/at most 100 replies/)
    // Deleting makes room again.
    await call(`${base}/${first.comment_id}`, { method: 'DELETE', key: account.key })
    expect((await post(account.key, base, { body: 'Room again' })).status).toBe(201)
  })
})
