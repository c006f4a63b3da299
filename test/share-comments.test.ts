import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import {
  bytesOf,
  call,
  csrfOf,
  errorOf,
  formPost,
  json,
  newAccount,
  newCanvas,
  upload,
  type Account,
} from './support/api'
import { freshAddress, withinOneWindow } from './support/limit-window'
import { heard, liveLinkOf, open } from './support/live'
import { createWebhook, eventually, hook, received } from './support/webhooks'

// Comments through share links (docs/comments-and-webhooks.md): a link that allows them lets its
// readers read the canvas's comments and add comments and replies under a name of their choice;
// every other link, and a link that can no longer be used, refuses. Viewers that may read comments
// hear of them live; webhooks hear of each one.

async function setup(link: object = { allow_comments: true }) {
  const account = await newAccount()
  const canvas = await newCanvas(account.key, 'Ship it on Friday.', { title: 'Plan' })
  const share = await shareOf(account, canvas.canvas_id, link)
  return { account, canvas, share }
}

async function shareOf(account: Account, canvasId: string, body: object) {
  const res = await call(`/v1/canvases/${canvasId}/shares`, {
    method: 'POST',
    key: account.key,
    json: body,
  })
  expect(res.status).toBe(201)
  return json(res)
}

const visitorPost = (token: string, body: unknown, init: Parameters<typeof call>[1] = {}) =>
  call(`/share/${token}/comments`, { method: 'POST', json: body, ...init })

describe('comments through share links', () => {
  it('a link that allows comments: its readers list them and comment under a name', async () => {
    const { account, canvas, share } = await setup()
    expect(share.allow_comments).toBe(true)
    const meta = await json(await call(`/share/${share.token}`))
    expect(meta.share.allow_comments).toBe(true)
    const ownerComment = await json(
      await call(`/v1/canvases/${canvas.canvas_id}/comments`, {
        method: 'POST',
        key: account.key,
        json: { body: 'Please check the date' },
      }),
    )
    const listed = await json(await call(`/share/${share.token}/comments`))
    expect(listed.comments.map((c: any) => c.comment_id)).toEqual([ownerComment.comment_id])
    const anchor = { quote: { exact: 'Friday' } }
    const res = await visitorPost(share.token, {
      body: 'Friday is a holiday',
      name: '  Ada ',
      anchor,
    })
    expect(res.status).toBe(201)
    expect(res.headers.get('Cache-Control')).toBe('no-store')
    const made = await json(res)
    expect(made).toMatchObject({
      canvas_id: canvas.canvas_id,
      version: 1,
      anchor,
      body: 'Friday is a holiday',
      author: { name: 'Ada', kind: 'visitor' },
      status: 'open',
    })
    const reply = await call(`/share/${share.token}/comments/${ownerComment.comment_id}/replies`, {
      method: 'POST',
      json: { body: 'Checked: it is fine', name: 'Ada' },
    })
    expect(reply.status).toBe(201)
    expect((await json(reply)).author).toEqual({ name: 'Ada', kind: 'visitor' })
    // The owner sees it all, and deletes what a visitor wrote.
    const all = await json(
      await call(`/v1/canvases/${canvas.canvas_id}/comments`, { key: account.key }),
    )
    expect(all.comments.map((c: any) => [c.author.kind, c.replies.length])).toEqual([
      ['member', 1],
      ['visitor', 0],
    ])
    const deleted = await call(`/v1/canvases/${canvas.canvas_id}/comments/${made.comment_id}`, {
      method: 'DELETE',
      key: account.key,
    })
    expect(deleted.status).toBe(200)
    // A visitor can neither resolve nor delete: the link has no such routes.
    for (const [method, path] of [
      ['POST', `/share/${share.token}/comments/${ownerComment.comment_id}/resolve`],
      ['DELETE', `/share/${share.token}/comments/${ownerComment.comment_id}`],
    ]) {
      expect((await call(path, { method })).status).toBe(404)
    }
  })

  it('a resolved thread stays on the link’s page, folded with its answer, and is not counted open', async () => {
    const { account, canvas, share } = await setup()
    const asked = await json(
      await visitorPost(share.token, { name: 'Grace', body: 'Is Friday firm?' }),
    )
    const base = `/v1/canvases/${canvas.canvas_id}/comments/${asked.comment_id}`
    await call(`${base}/replies`, {
      method: 'POST',
      key: account.key,
      json: { body: 'Yes, firm.' },
    })
    await call(`${base}/resolve`, { method: 'POST', key: account.key })
    await call(`/v1/canvases/${canvas.canvas_id}/comments`, {
      method: 'POST',
      key: account.key,
      json: { body: 'Still open' },
    })
    const page = await (await call(`/s/${share.token}`)).text()
    const thread = /<li class="comment resolved"[^>]*>.*?<\/details><\/li>/s.exec(page)?.[0] ?? ''
    expect(thread).toContain('<summary>Resolved · 1 reply</summary>')
    expect(thread).toContain('Is Friday firm?')
    expect(thread).toContain('Yes, firm.')
    expect(/data-comments-count[^>]*>\s*(\d+)/.exec(page)?.[1]).toBe('1')
  })

  it('a pinned link’s comments are made on the version it shows', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'one')
    await call(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'PATCH',
      key: account.key,
      json: { file_id: await upload(account.key, bytesOf('two')) },
    })
    const pinned = await shareOf(account, canvas.canvas_id, { version: 1, allow_comments: true })
    const latest = await shareOf(account, canvas.canvas_id, { allow_comments: true })
    const on = async (token: string) =>
      (await json(await visitorPost(token, { body: 'Here', name: 'Bo' }))).version
    expect([await on(pinned.token), await on(latest.token)]).toEqual([1, 2])
    // A visitor cannot choose another version.
    const res = await visitorPost(pinned.token, { body: 'x', name: 'Bo', version: 2 })
    expect(res.status).toBe(400)
  })

  it('a pinned link shows no comment made on a later version, nor lets a visitor reply to one', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'The plan.')
    await call(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'PATCH',
      key: account.key,
      json: { file_id: await upload(account.key, bytesOf('The plan. Layoffs in March.')) },
    })
    const post = (json: object) =>
      call(`/v1/canvases/${canvas.canvas_id}/comments`, { method: 'POST', key: account.key, json })
    const early = await json(await post({ body: 'Looks fine', version: 1 }))
    const later = await json(
      await post({ body: 'Keep March quiet', anchor: { quote: { exact: 'Layoffs in March' } } }),
    )
    expect(later.version).toBe(2)
    const pinned = await shareOf(account, canvas.canvas_id, { version: 1, allow_comments: true })
    const latest = await shareOf(account, canvas.canvas_id, { allow_comments: true })
    const ids = async (path: string) =>
      (await json(await call(path))).comments.map((c: any) => c.comment_id)
    for (const base of ['/share', '/s']) {
      for (const status of ['all', 'open']) {
        const path = `${base}/${pinned.token}/comments?status=${status}`
        expect(await ids(path), path).toEqual([early.comment_id])
        expect(await ids(`${base}/${pinned.token}/comments?version=2`), path).toEqual([])
        expect(await ids(`${base}/${latest.token}/comments?status=${status}`), path).toEqual([
          early.comment_id,
          later.comment_id,
        ])
      }
      const reply = (token: string, id: string) =>
        call(`${base}/${token}/comments/${id}/replies`, {
          method: 'POST',
          json: { body: 'What layoffs?', name: 'Bo' },
        })
      const refused = await reply(pinned.token, later.comment_id)
      expect(refused.status).toBe(404)
      expect(await json(refused)).toEqual(errorOf('comment_not_found', /^comment not found\.?$/i))
      expect((await reply(pinned.token, early.comment_id)).status).toBe(201)
    }
    // Nothing of the later comment was added to by the refused replies.
    const owner = await json(
      await call(`/v1/canvases/${canvas.canvas_id}/comments?status=all`, { key: account.key }),
    )
    const byId = new Map(owner.comments.map((c: any) => [c.comment_id, c.replies.length]))
    expect(byId).toEqual(
      new Map([
        [early.comment_id, 2],
        [later.comment_id, 0],
      ]),
    )
  })

  it('a link without comments refuses to list or take them', async () => {
    const { account, canvas, share } = await setup({})
    expect(share.allow_comments).toBe(false)
    await call(`/v1/canvases/${canvas.canvas_id}/comments`, {
      method: 'POST',
      key: account.key,
      json: { body: 'Owner only' },
    })
    const disabled = errorOf('comments_disabled', 'this share link does not allow comments')
    for (const res of [
      await call(`/share/${share.token}/comments`),
      await visitorPost(share.token, { body: 'Hi', name: 'Ada' }),
      await call(`/share/${share.token}/comments/anything/replies`, {
        method: 'POST',
        json: { body: 'Hi', name: 'Ada' },
      }),
    ]) {
      expect(res.status).toBe(403)
      expect(await json(res)).toEqual(disabled)
    }
  })

  it('a password link needs its password, checked like the link’s other routes', async () => {
    const { share } = await setup({ allow_comments: true, password: 'open sesame' })
    const body = { body: 'Hi', name: 'Ada' }
    const none = await visitorPost(share.token, body)
    expect(none.status).toBe(401)
    expect((await json(none)).error.code).toBe('share_password_required')
    const wrong = await visitorPost(share.token, body, { headers: { 'X-Share-Password': 'guess' } })
    expect(wrong.status).toBe(403)
    expect((await json(wrong)).error.code).toBe('share_password_invalid')
    expect((await call(`/share/${share.token}/comments`)).status).toBe(401)
    const right = { headers: { 'X-Share-Password': 'open sesame' } }
    expect((await visitorPost(share.token, body, right)).status).toBe(201)
    const listed = await json(await call(`/share/${share.token}/comments`, right))
    expect(listed.comments).toHaveLength(1)
  })

  it('a link revoked, expired or used up, or a canvas gone, takes no comment', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'text', { permanent: true })
    const id = canvas.canvas_id
    const body = { body: 'Late', name: 'Ada' }
    const revoked = await shareOf(account, id, { allow_comments: true })
    await call(`/v1/canvases/${id}/shares/${revoked.token}`, { method: 'DELETE', key: account.key })
    const r = await visitorPost(revoked.token, body)
    expect(r.status).toBe(404)
    expect((await json(r)).error.code).toBe('share_not_found')

    const used = await shareOf(account, id, { allow_comments: true, max_views: 1 })
    // Comments never count a view, before the last view or after.
    expect((await visitorPost(used.token, body)).status).toBe(201)
    expect((await call(`/share/${used.token}/content`)).status).toBe(302)
    const u = await visitorPost(used.token, body)
    expect(u.status).toBe(410)
    expect((await json(u)).error.code).toBe('share_exhausted')

    const brief = await shareOf(account, id, { allow_comments: true, expires_in: '1s' })
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    const e = await visitorPost(brief.token, body)
    expect(e.status).toBe(410)
    expect((await json(e)).error.code).toBe('share_expired')

    const open = await shareOf(account, id, { allow_comments: true })
    await call(`/v1/canvases/${id}`, { method: 'DELETE', key: account.key })
    const g = await visitorPost(open.token, body)
    expect(g.status).toBe(404)
    expect((await json(g)).error.code).toBe('canvas_not_found')
  })

  it('a visitor’s name and body are checked; nothing is stored when refused', async () => {
    const { account, canvas, share } = await setup()
    const cases: [unknown, RegExp][] = [
      [{ body: 'Hi' }, /^name: /],
      [{ body: 'Hi', name: '   ' }, /^name: must not be empty/],
      [{ body: 'Hi', name: 'x'.repeat(61) }, /^name: must be at most 60/],
      [{ body: 'Hi', name: 'Ada\u0007' }, /^name: must not contain control characters/],
      [{ body: 'Hi', name: 'Ada \udc00' }, /^name: must not contain unpaired surrogates/],
      // The review's fourth finding: names that pass for another or turn the page around them.
      ...['\u202e', '\u2066', '\u200f', '\u200b', '\u200d', '\u2060', '\ufeff', '\u2028'].map(
        (hidden): [unknown, RegExp] => [
          { body: 'Hi', name: `Ada${hidden}nimda` },
          /^name: must not contain invisible or direction-changing characters/,
        ],
      ),
      [{ body: 'Hi', name: 'alice@example.com' }, /^name: must not be an email address/],
      [{ body: 'Hi', name: 'x'.repeat(15_000) }, /^name: must be at most 60/],
      [{ body: '', name: 'Ada' }, /^body: must not be empty/],
      [{ body: 'Hi', name: 'Ada', anchor: { point: { x: -0.1, y: 0 } } }, /^anchor/],
      [{ body: 'Hi', name: 'Ada', extra: true }, /./],
    ]
    for (const [body, message] of cases) {
      const res = await visitorPost(share.token, body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(await json(res)).toEqual(errorOf('invalid_request', message))
    }
    const all = await json(
      await call(`/v1/canvases/${canvas.canvas_id}/comments?status=all`, { key: account.key }),
    )
    expect(all.comments).toEqual([])
    // Markdown and HTML are kept as written: what shows them renders them safely.
    const hostile =
      '<script>alert(1)</script> [x](javascript:alert(1)) <img src=x onerror=alert(1)>'
    const made = await json(await visitorPost(share.token, { body: hostile, name: '<b>Eve</b>' }))
    expect(made.body).toBe(hostile)
    expect(made.author.name).toBe('<b>Eve</b>')
    // A name that claims a role is a visitor's all the same, and says so wherever it is shown.
    const claim = await json(
      await visitorPost(share.token, { body: 'Hi', name: 'alicekey (owner)' }),
    )
    expect(claim.author).toEqual({ name: 'alicekey (owner)', kind: 'visitor' })
    const page = await (await call(`/c/${canvas.canvas_id}`, { cookie: account.cookie })).text()
    expect(page).toContain(
      '<strong class="who"><bdi dir="auto">alicekey (owner)</bdi></strong><span class="chip">visitor</span>',
    )
  })

  it('what a visitor posts is rate-limited per client address', async () => {
    const { share } = await setup()
    const limited = { COMMENT_LIMITER: env.AUTH_LIMITER_SMALL }
    const body = { body: 'Again', name: 'Ada' }
    await withinOneWindow(async (ip) => {
      const statuses = []
      for (let i = 0; i < 6; i++) {
        statuses.push((await visitorPost(share.token, body, { ip, env: limited })).status)
      }
      expect(statuses).toEqual([201, 201, 201, 201, 201, 429])
      // Reading is not what this limit counts.
      const read = await call(`/share/${share.token}/comments`, { ip, env: limited })
      expect(read.status).toBe(200)
    })
    // Another address has a budget of its own.
    const elsewhere = await visitorPost(share.token, body, { ip: freshAddress(), env: limited })
    expect(elsewhere.status).toBe(201)
  })

  it('live: the owner and comment links hear each change; other viewers hear nothing', async () => {
    const { account, canvas, share } = await setup()
    const id = canvas.canvas_id
    const plain = await shareOf(account, id, {})
    const ownerPage = await call(`/c/${id}`, { cookie: account.cookie })
    const ownerLink = /data-live="([^"]+)"/
      .exec(await ownerPage.text())![1]
      .replaceAll('&amp;', '&')
    const owner = await open(ownerLink)
    const commenter = await open((await liveLinkOf(`/s/${share.token}`))!)
    const bystander = await open((await liveLinkOf(`/s/${plain.token}`))!)
    // Each first hears the version it opened on.
    for (const socket of [owner, commenter, bystander]) await heard(socket, 1)
    const made = await json(await visitorPost(share.token, { body: 'Live?', name: 'Ada' }))
    const base = `/v1/canvases/${id}/comments/${made.comment_id}`
    await call(`${base}/resolve`, { method: 'POST', key: account.key })
    await call(base, { method: 'DELETE', key: account.key })
    for (const socket of [owner, commenter]) {
      const messages = await heard(socket, 4)
      expect(messages.slice(1)).toEqual([
        { type: 'comment', comment: made },
        {
          type: 'comment',
          comment: { ...made, status: 'resolved', resolved_at: expect.any(String) },
        },
        { type: 'comment_deleted', comment_id: made.comment_id },
      ])
    }
    // The link without comments heard its version and nothing of the comments: sent in the same
    // pass as the others', they would be here by now; a second more to be sure.
    await heard(bystander, 2, 1000)
    expect(bystander.messages).toEqual([{ type: 'version', version: 1 }])
  })

  it('a link pinned to a version hears live of comments on it or before, and of nothing newer', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'The plan.')
    const id = canvas.canvas_id
    const pinned = await shareOf(account, id, { version: 1, allow_comments: true })
    const link = (await liveLinkOf(`/s/${pinned.token}`))!
    expect(link).not.toBeNull()
    const reader = await open(link)
    expect(await heard(reader, 1)).toEqual([{ type: 'version', version: 1 }])
    await call(`/v1/canvases/${id}`, {
      method: 'PATCH',
      key: account.key,
      json: { file_id: await upload(account.key, bytesOf('The plan. Layoffs in March.')) },
    })
    const post = (json: object) =>
      call(`/v1/canvases/${id}/comments`, { method: 'POST', key: account.key, json })
    await json(await post({ body: 'Keep March quiet', anchor: { quote: { exact: 'March' } } }))
    const early = await json(await post({ body: 'Looks fine', version: 1 }))
    const [, heardOf] = await heard(reader, 2)
    expect(heardOf).toMatchObject({ type: 'comment', comment: { comment_id: early.comment_id } })
    // Neither v2 nor the comment on it: sent before the one heard, they would be here by now.
    await heard(reader, 3, 1000)
    expect(reader.messages).toHaveLength(2)
    // Nor does its frame route hand over anything but its own version.
    const frame = await json(await call(link.replace('?', '/frame?')))
    expect(frame.version).toBe(1)
  })

  it('a link’s readers see members by their display name, never by email', async () => {
    const { account, canvas, share } = await setup()
    const id = canvas.canvas_id
    const byPage = await call(`/c/${id}/comments`, {
      method: 'POST',
      cookie: account.cookie,
      headers: { 'X-CSRF-Token': await csrfOf(account.cookie) },
      json: { body: 'From the page' },
    })
    expect(byPage.status).toBe(201)
    const pageComment = await json(byPage)
    // Members see who wrote it by email (a session) or key name (a key).
    expect(pageComment.author).toEqual({ name: account.email, kind: 'member' })
    const local = account.email.split('@')[0]
    const visitorIds = async () => {
      const listed = await json(await call(`/share/${share.token}/comments`))
      return listed.comments.map((c: any) => c.author.name)
    }
    expect(await visitorIds()).toEqual([local])
    // A display name, set in Settings, is what a link's readers see of what is written after.
    const settings = await call('/settings/name', {
      ...formPost({ display_name: '  Ada Lovelace ', _csrf: await csrfOf(account.cookie) }),
      cookie: account.cookie,
    })
    expect(settings.status).toBe(302)
    expect(settings.headers.get('Location')).toBe('/settings#name')
    const page = await (await call('/settings', { cookie: account.cookie })).text()
    expect(page).toContain(
      'name="display_name" maxlength="60" autocomplete="name" value="Ada Lovelace"',
    )
    expect(settings.headers.get('Set-Cookie')).toContain('canvas_flash=')
    const ownerLive = await open((await liveLinkOf(`/c/${id}`, account.cookie))!)
    const readerLive = await open((await liveLinkOf(`/s/${share.token}`))!)
    const byKey = await json(
      await call(`/v1/canvases/${id}/comments`, {
        method: 'POST',
        key: account.key,
        json: { body: 'From a key' },
      }),
    )
    expect(byKey.author.kind).toBe('member')
    expect(await visitorIds()).toEqual([local, 'Ada Lovelace'])
    const [, ownerHeard] = await heard(ownerLive, 2)
    const [, readerHeard] = await heard(readerLive, 2)
    expect(ownerHeard).toMatchObject({ comment: { author: byKey.author } })
    expect(readerHeard).toMatchObject({
      comment: { author: { name: 'Ada Lovelace', kind: 'member' } },
    })
    // A visitor's reply answers with names as visitors see them, and the share page shows no email.
    const reply = await call(`/share/${share.token}/comments/${pageComment.comment_id}/replies`, {
      method: 'POST',
      json: { body: 'Thanks', name: 'Bo' },
    })
    expect((await json(reply)).author).toEqual({ name: 'Bo', kind: 'visitor' })
    for (const path of [`/s/${share.token}`, `/s/${share.token}/comments?status=all`]) {
      expect(await (await call(path)).text(), path).not.toContain(account.email)
    }
    expect(JSON.stringify(readerLive.messages)).not.toContain('@')
    // Hostile names are refused there as on comments, and an empty one goes back to the default.
    for (const bad of ['ada@example.com', 'Ada\u202e', 'x'.repeat(61)]) {
      const refused = await call('/settings/name', {
        ...formPost({ display_name: bad, _csrf: await csrfOf(account.cookie) }),
        cookie: account.cookie,
      })
      expect(refused.status, bad).toBe(400)
      expect(await refused.text()).toContain('The display name must')
    }
    await call('/settings/name', {
      ...formPost({ display_name: '', _csrf: await csrfOf(account.cookie) }),
      cookie: account.cookie,
    })
    const reset = await (await call('/settings', { cookie: account.cookie })).text()
    expect(reset).toContain('autocomplete="name" value=""')
    expect(reset).toContain(`Leave it empty to go back to <strong>${local}</strong>`)
  })

  it('webhooks hear comment.created, comment.replied and comment.resolved, each naming its actor', async () => {
    const { account, share } = await setup()
    const place = hook()
    await createWebhook(account.key, {
      url: place.url,
      events: ['comment.created', 'comment.replied', 'comment.resolved'],
    })
    const made = await json(await visitorPost(share.token, { body: 'Called back?', name: 'Ada' }))
    const reply = await json(
      await call(`/share/${share.token}/comments/${made.comment_id}/replies`, {
        method: 'POST',
        json: { body: 'And a reply', name: 'Bo' },
      }),
    )
    const path = `/v1/canvases/${made.canvas_id}/comments/${made.comment_id}`
    const resolved = await json(await call(`${path}/resolve`, { method: 'POST', key: account.key }))
    // Resolving it again changes nothing, and announces nothing.
    await call(`${path}/resolve`, { method: 'POST', key: account.key })
    const bodies = await eventually(
      'three deliveries',
      async () => (await received(place.name)).map((r) => JSON.parse(r.body)),
      (got) => got.length >= 3,
    )
    const byType = Object.fromEntries(bodies.map((b: any) => [b.type, b.data]))
    expect(byType['comment.created']).toEqual({
      canvas_id: made.canvas_id,
      comment: made,
      actor: { kind: 'visitor', name: 'Ada' },
    })
    expect(byType['comment.replied']).toEqual({
      canvas_id: made.canvas_id,
      comment: { ...made, replies: [reply] },
      reply,
      actor: { kind: 'visitor', name: 'Bo' },
    })
    expect(byType['comment.resolved']).toEqual({
      canvas_id: made.canvas_id,
      comment: { ...resolved, replies: [reply] },
      actor: { kind: 'key', name: expect.any(String), key_id: expect.any(String) },
    })
    expect(await received(place.name)).toHaveLength(3)
  })
})

// The review's seventh finding: a reply clicked twice was posted twice. A post sent with an
// Idempotency-Key (the page's script sends one with each) makes one comment or reply however
// often it arrives, for a link's readers and for the owner's page alike.
describe('the same post sent twice', () => {
  it('makes one comment and one reply through a share link; another post under the key is refused', async () => {
    const { account, canvas, share } = await setup()
    const send = (path: string, body: object, key: string) =>
      call(`/share/${share.token}/comments${path}`, {
        method: 'POST',
        json: body,
        headers: { 'Idempotency-Key': key },
      })
    const first = await send('', { body: 'Once', name: 'Ada' }, 'k-1')
    const again = await send('', { body: 'Once', name: 'Ada' }, 'k-1')
    expect([first.status, again.status]).toEqual([201, 201])
    const comment = await json(first)
    expect(await json(again)).toEqual(comment)
    const path = `/${comment.comment_id}/replies`
    const replies = await Promise.all(
      [1, 2, 3].map(() => send(path, { body: 'Thanks', name: 'Ada' }, 'k-2')),
    )
    expect(replies.map((r) => r.status)).toEqual([201, 201, 201])
    const made = await Promise.all(replies.map((r) => json(r)))
    expect(new Set(made.map((r) => r.reply_id)).size).toBe(1)
    // The key is the link's reader's: another link's reader may send the same one.
    const other = await shareOf(account, canvas.canvas_id, { allow_comments: true })
    const elsewhere = await call(`/share/${other.token}/comments`, {
      method: 'POST',
      json: { body: 'Once', name: 'Bo' },
      headers: { 'Idempotency-Key': 'k-1' },
    })
    expect((await json(elsewhere)).comment_id).not.toBe(comment.comment_id)
    // The same key on another post is refused; a malformed key is refused before anything.
    const reused = await send('', { body: 'Something else', name: 'Ada' }, 'k-1')
    expect(reused.status).toBe(409)
    expect(await json(reused)).toEqual(errorOf('conflict', /^Idempotency-Key: already used/))
    const asReply = await send(path, { body: 'Once', name: 'Ada' }, 'k-1')
    expect(asReply.status).toBe(409)
    for (const key of ['', 'é', 'x'.repeat(256)]) {
      const bad = await send('', { body: 'Once', name: 'Ada' }, key)
      expect(bad.status, JSON.stringify(key)).toBe(400)
    }
    const all = await json(
      await call(`/v1/canvases/${canvas.canvas_id}/comments?status=all`, { key: account.key }),
    )
    expect(all.comments.map((c: any) => [c.body, c.replies.length])).toEqual([
      ['Once', 1],
      ['Once', 0],
    ])
  })

  it('makes one reply from the owner’s page', async () => {
    const { account, canvas } = await setup()
    const csrf = await csrfOf(account.cookie)
    const post = (path: string, body: object, key: string) =>
      call(`/c/${canvas.canvas_id}/comments${path}`, {
        method: 'POST',
        cookie: account.cookie,
        json: body,
        headers: { 'X-CSRF-Token': csrf, 'Idempotency-Key': key },
      })
    const comment = await json(await post('', { body: 'Check this' }, 'a'))
    expect((await json(await post('', { body: 'Check this' }, 'a'))).comment_id).toBe(
      comment.comment_id,
    )
    const path = `/${comment.comment_id}/replies`
    const [one, two] = await Promise.all([1, 2].map(() => post(path, { body: 'Done' }, 'b')))
    expect((await json(one)).reply_id).toBe((await json(two)).reply_id)
    const listed = await json(
      await call(`/v1/canvases/${canvas.canvas_id}/comments`, { key: account.key }),
    )
    expect(listed.comments).toHaveLength(1)
    expect(listed.comments[0].replies).toHaveLength(1)
  })
})
