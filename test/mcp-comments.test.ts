import { describe, expect, it } from 'vitest'
import { call, json, newAccount, newKey, type Account } from './support/api'
import { connect, fails, ok, use } from './support/mcp'
import { connect as approve, mcp, tool } from './support/oauth'

// The review loop as an agent meets it over MCP: a person comments, the agent lists the open
// comments, publishes a new version, replies and resolves; what it writes is signed as an agent.

const TIME = expect.stringMatching(/^\d{4}-\d\d-\d\dT/)

async function setup(account?: Account) {
  account ??= await newAccount()
  const client = await connect(account.key)
  const canvas = await ok(client, 'publish', {
    content: '# Plan\n\nShip it on Friday.',
    filename: 'plan.md',
  })
  const id: string = canvas.canvas_id
  return { account, client, id }
}

async function personComments(key: string, canvasId: string, body: unknown) {
  const res = await call(`/v1/canvases/${canvasId}/comments`, { method: 'POST', key, json: body })
  expect(res.status).toBe(201)
  return json(res)
}

async function apiComments(key: string, canvasId: string) {
  const res = await call(`/v1/canvases/${canvasId}/comments?status=all`, { key })
  expect(res.status).toBe(200)
  return (await json(res)).comments as any[]
}

describe('comments over MCP', () => {
  it('lists what people said, replies as an agent and resolves, as the API shows it', async () => {
    const { account, client, id } = await setup()
    const quote = { quote: { exact: 'on Friday', prefix: 'Ship it ' } }
    const asked = await personComments(account.key, id, { body: 'Why Friday?', anchor: quote })
    // A reader of a share link that allows comments.
    const share = await ok(client, 'share_canvas', { canvas_id: id, allow_comments: true })
    expect(share.allow_comments).toBe(true)
    const visitor = await call(`/share/${share.token}/comments`, {
      method: 'POST',
      json: { body: 'Looks good', name: 'Ada' },
    })
    expect(visitor.status).toBe(201)

    const open = await ok(client, 'list_comments', { canvas_id: id })
    expect(open.comments).toEqual([
      asked,
      expect.objectContaining({ body: 'Looks good', author: { name: 'Ada', kind: 'visitor' } }),
    ])

    await ok(client, 'edit_canvas', {
      canvas_id: id,
      edits: [{ old: 'on Friday', new: 'on Monday' }],
    })
    const reply = await ok(client, 'reply_comment', {
      canvas_id: id,
      comment_id: asked.comment_id,
      body: 'Moved to **Monday** in version 2.',
    })
    expect(reply).toEqual({
      reply_id: expect.stringMatching(/^[A-Za-z0-9]+$/),
      body: 'Moved to **Monday** in version 2.',
      author: { name: 'test key', kind: 'agent' },
      created_at: TIME,
    })
    const resolved = await ok(client, 'resolve_comment', {
      canvas_id: id,
      comment_id: asked.comment_id,
    })
    expect(resolved).toEqual({
      ...asked,
      status: 'resolved',
      resolved_at: TIME,
      replies: [reply],
    })

    const left = await ok(client, 'list_comments', { canvas_id: id })
    expect(left.comments.map((c: any) => c.body)).toEqual(['Looks good'])
    expect(
      (await ok(client, 'list_comments', { canvas_id: id, status: 'resolved' })).comments,
    ).toEqual([resolved])
    const all = await ok(client, 'list_comments', { canvas_id: id, status: 'all' })
    expect(all.comments).toHaveLength(2)
    expect((await ok(client, 'list_comments', { canvas_id: id, version: 2 })).comments).toEqual([])
    // The API sees the same threads.
    expect(await apiComments(account.key, id)).toEqual(all.comments)
  })

  it('adds a comment of its own: on the whole canvas, a quote or a point, of a version', async () => {
    const { account, client, id } = await setup()
    await ok(client, 'publish', { content: '# Plan v2', filename: 'plan.md', canvas_id: id })
    const whole = await ok(client, 'add_comment', { canvas_id: id, body: 'Draft: please review' })
    expect(whole).toEqual({
      comment_id: expect.stringMatching(/^[A-Za-z0-9]+$/),
      canvas_id: id,
      version: 2,
      anchor: null,
      body: 'Draft: please review',
      author: { name: 'test key', kind: 'agent' },
      status: 'open',
      created_at: TIME,
      resolved_at: null,
      replies: [],
    })
    const anchor = { quote: { exact: 'Friday' } }
    const quoted = await ok(client, 'add_comment', {
      canvas_id: id,
      body: 'Was this right?',
      anchor,
      version: 1,
    })
    expect(quoted).toMatchObject({ version: 1, anchor })
    const point = await ok(client, 'add_comment', {
      canvas_id: id,
      body: 'Here',
      anchor: { point: { x: 0.5, y: 1 } },
    })
    expect(point.anchor).toEqual({ point: { x: 0.5, y: 1 } })
    await fails(
      client,
      'add_comment',
      { canvas_id: id, body: 'x', version: 9 },
      'version_not_found',
    )
    expect(await apiComments(account.key, id)).toEqual([whole, quoted, point])
  })

  it('signs as the OAuth app; a read-only grant or read key lists and changes nothing', async () => {
    const { account, client, id } = await setup()
    const asked = await personComments(account.key, id, { body: 'Shorter, please' })
    const { tokens } = await approve(account)
    const reply = await tool(tokens.access_token, 'reply_comment', {
      canvas_id: id,
      comment_id: asked.comment_id,
      body: 'Done',
    })
    expect(reply.structuredContent.author).toEqual({ name: 'Test App', kind: 'agent' })

    const readGrant = (await approve(account, 'canvas:read')).tokens.access_token
    const readKey = await connect(await newKey(account.cookie, ['read']))
    const listed = await tool(readGrant, 'list_comments', { canvas_id: id })
    expect(listed.structuredContent.comments).toHaveLength(1)
    expect((await ok(readKey, 'list_comments', { canvas_id: id })).comments).toHaveLength(1)
    const changes: [string, Record<string, unknown>][] = [
      ['add_comment', { canvas_id: id, body: 'x' }],
      ['reply_comment', { canvas_id: id, comment_id: asked.comment_id, body: 'x' }],
      ['resolve_comment', { canvas_id: id, comment_id: asked.comment_id }],
    ]
    for (const [name, args] of changes) {
      // The app may ask the person for write access (a step-up answer); a key cannot be widened.
      const asking = await mcp(readGrant, 'tools/call', { name, arguments: args })
      expect(asking.status, name).toBe(403)
      expect(asking.headers.get('WWW-Authenticate'), name).toMatch(/error="insufficient_scope"/)
      expect(await fails(readKey, name, args, 'forbidden')).toBe(
        "forbidden: this API key lacks the 'write' scope",
      )
    }
    const [after] = await apiComments(account.key, id)
    expect(after).toMatchObject({ status: 'open', replies: [reply.structuredContent] })
    await client.close()
  })

  it('sees only its own workspace, and says which of canvas and comment is missing', async () => {
    const { account, client, id } = await setup()
    const mine = await personComments(account.key, id, { body: 'mine' })
    const other = await setup()
    const theirs = await personComments(other.account.key, other.id, { body: 'theirs' })

    await fails(client, 'list_comments', { canvas_id: other.id }, 'canvas_not_found')
    await fails(client, 'add_comment', { canvas_id: other.id, body: 'x' }, 'canvas_not_found')
    for (const name of ['reply_comment', 'resolve_comment']) {
      const args = { canvas_id: other.id, comment_id: theirs.comment_id, body: 'x' }
      if (name === 'resolve_comment') delete (args as any).body
      await fails(client, name, args, 'canvas_not_found')
      // Their comment asked for under my canvas: no such comment here.
      expect(await fails(client, name, { ...args, canvas_id: id }, 'comment_not_found')).toBe(
        'comment_not_found: comment not found',
      )
      await fails(client, name, { ...args, canvas_id: id, comment_id: 'nope' }, 'comment_not_found')
    }
    await fails(client, 'list_comments', { canvas_id: 'missing' }, 'canvas_not_found')
    expect(await apiComments(other.account.key, other.id)).toEqual([theirs])
    expect(await apiComments(account.key, id)).toEqual([mine])
  })

  it('refuses hostile arguments with invalid_request and stores nothing', async () => {
    const { account, client, id } = await setup()
    const asked = await personComments(account.key, id, { body: 'keep' })
    const cid = asked.comment_id
    const bad: [string, Record<string, unknown>][] = [
      ['list_comments', { canvas_id: id, status: 'closed' }],
      ['list_comments', { canvas_id: id, version: 0 }],
      ['list_comments', { canvas_id: id, version: '1' }],
      ['list_comments', { canvas_id: id, version: 1.5 }],
      ['list_comments', { canvas_id: 5 }],
      ['list_comments', { canvas_id: id, extra: true }],
      ['reply_comment', { canvas_id: id, comment_id: cid }],
      ['reply_comment', { canvas_id: id, comment_id: cid, body: '' }],
      ['reply_comment', { canvas_id: id, comment_id: cid, body: 5 }],
      ['reply_comment', { canvas_id: id, comment_id: cid, body: ['x'] }],
      ['reply_comment', { canvas_id: id, comment_id: cid, body: 'x'.repeat(10_001) }],
      ['reply_comment', { canvas_id: id, comment_id: cid, body: 'half \uD800 a character' }],
      ['reply_comment', { canvas_id: id, comment_id: '../x', body: 'x' }],
      ['reply_comment', { canvas_id: id, comment_id: 7, body: 'x' }],
      ['reply_comment', { canvas_id: id, comment_id: 'x'.repeat(65), body: 'x' }],
      ['resolve_comment', { canvas_id: id, comment_id: cid, idempotency_key: 'é' }],
      ['resolve_comment', { canvas_id: id, comment_id: null }],
      ['add_comment', { canvas_id: id, body: '\uDC00' }],
      ['add_comment', { canvas_id: id, body: 'x', anchor: { quote: { exact: '' } } }],
      ['add_comment', { canvas_id: id, body: 'x', anchor: { point: { x: 2, y: 0 } } }],
      ['add_comment', { canvas_id: id, body: 'x', anchor: { point: { x: 0, y: 0 }, quote: {} } }],
      ['add_comment', { canvas_id: id, body: 'x', anchor: 'top' }],
      ['add_comment', { canvas_id: id, body: 'x', version: -1 }],
    ]
    for (const [name, args] of bad) {
      const text = await fails(client, name, args, 'invalid_request')
      expect(text.length, text).toBeLessThan(500)
    }
    // The longest body allowed is taken whole.
    const longest = 'y'.repeat(10_000)
    const reply = await ok(client, 'reply_comment', {
      canvas_id: id,
      comment_id: cid,
      body: longest,
    })
    expect(reply.body).toBe(longest)
    expect(await apiComments(account.key, id)).toEqual([{ ...asked, replies: [reply] }])
  })

  it('idempotency_key makes a reply safe to retry', async () => {
    const { account, client, id } = await setup()
    const asked = await personComments(account.key, id, { body: 'ping' })
    const args = {
      canvas_id: id,
      comment_id: asked.comment_id,
      body: 'pong',
      idempotency_key: 'r1',
    }
    const first = await use(client, 'reply_comment', args)
    const again = await use(client, 'reply_comment', args)
    expect(again.structuredContent).toEqual(first.structuredContent)
    expect((again as any)._meta).toEqual({ idempotent_replayed: true })
    const [thread] = await apiComments(account.key, id)
    expect(thread.replies).toEqual([first.structuredContent])
  })
})
