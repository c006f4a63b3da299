import { describe, expect, it } from 'vitest'
import { call, csrfOf, formPost, json, newAccount, newCanvas } from './support/api'
import { heard, listening, liveLinkOf, open, SOON, type Live } from './support/live'
import { connect, grantOf, mcp } from './support/oauth'
import { joinedAs, keyIn, newTeam } from './support/teams'

// A credential that ends reaches everything it opened (docs/teams.md#roles-at-every-request):
// removing a member, their logout, revoking a key and ending an app's grant close that person's
// (or credential's) live sockets and end their pending waits for comments before the request
// that ended it answers; nothing reaches them afterwards, and what another credential holds open
// goes on.

type Held = {
  socket: Live
  /** The pending waits, each by its credential, as the answers they come back with. */
  session: Promise<Response>
  key: Promise<Response>
  app: Promise<Response>
}

/** A team canvas, and a member (an editor) with a session, a key and an app in the team. */
async function team() {
  const owner = await newAccount()
  const workspaceId = await newTeam(owner, 'Review team')
  const ownerKey = await keyIn(owner, workspaceId)
  const canvas = await newCanvas(ownerKey, 'the plan under review')
  const { person } = await joinedAs(owner, workspaceId, 'editor')
  const switched = await call('/auth/switch', {
    method: 'POST',
    cookie: person.cookie,
    json: { workspace_id: workspaceId },
  })
  expect(switched.status).toBe(200)
  const key = await keyIn(person, workspaceId, 'laptop')
  const { tokens } = await connect(person, 'canvas:read canvas:write')
  return { owner, ownerKey, workspaceId, canvasId: canvas.canvas_id, person, key, tokens }
}

type Team = Awaited<ReturnType<typeof team>>

/** Everything the member holds open on the canvas: a live socket, and a wait by each credential. */
async function holdOpen(t: Team): Promise<Held> {
  const link = await liveLinkOf(`/c/${t.canvasId}`, t.person.cookie)
  expect(link).toBeTruthy()
  const socket = await open(link!)
  await heard(socket, 1)
  const wait = `/comments/wait?timeout_s=30`
  const held = {
    socket,
    session: call(`/c/${t.canvasId}${wait}`, {
      cookie: t.person.cookie,
      headers: { Accept: 'application/json' },
    }),
    key: call(`/v1/canvases/${t.canvasId}${wait}`, { key: t.key }),
    app: mcp(t.tokens.access_token, 'tools/call', {
      name: 'wait_for_comments',
      arguments: { canvas_id: t.canvasId, timeout_s: 30 },
    }),
  }
  // The waits have begun (each recorded where its credential listens) before anything ends.
  await listening(t.person.userId, t.canvasId, 4)
  return held
}

/** Whether a pending answer has come back within `ms`, without consuming it. */
async function settledWithin(answer: Promise<Response>, ms: number) {
  const late = new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms))
  return (await Promise.race([answer.then(() => 'settled' as const), late])) === 'settled'
}

/** A wait that ended with its credential: refused, never the comments it waited for. */
async function expectEnded(answer: Promise<Response>, where: string) {
  const res = await answer
  const text = await res.text()
  expect(text, where).not.toContain('said after the end')
  if (res.headers.get('Content-Type')?.includes('event-stream') || text.includes('jsonrpc')) {
    // MCP: a tool's failure is a result, with the code first.
    const body = JSON.parse(text)
    expect(body.result.isError, where).toBe(true)
    expect(body.result.content[0].text, where).toMatch(/^unauthorized: your access ended/)
    return
  }
  expect(res.status, where).toBe(401)
  expect(JSON.parse(text).error.code, where).toBe('unauthorized')
}

/** The socket was told its access ended, and was closed with that reason's code. */
async function expectSocketEnded(live: Live) {
  const closed = await Promise.race([
    live.closed,
    new Promise<null>((r) => setTimeout(() => r(null), SOON)),
  ])
  expect(closed?.code).toBe(4005)
  expect(live.messages).toContainEqual({ type: 'gone', reason: 'signed_out' })
}

/** The owner comments after the end: nothing of it reaches an ended socket or wait. */
async function commentAfter(t: Team) {
  const res = await call(`/v1/canvases/${t.canvasId}/comments`, {
    method: 'POST',
    key: t.ownerKey,
    json: { body: 'said after the end' },
  })
  expect(res.status).toBe(201)
}

const heardNothingAfter = (live: Live, count: number) =>
  expect(live.messages.slice(count).filter((m) => (m as { type?: string }).type === 'comment'))

describe('a credential that ends reaches its sockets and waits before the request answers', () => {
  it('removing a member ends their socket and every wait of theirs in the workspace', async () => {
    const t = await team()
    const held = await holdOpen(t)
    const removed = await call(`/v1/workspaces/${t.workspaceId}/members/${t.person.userId}`, {
      method: 'DELETE',
      key: t.ownerKey,
    })
    expect(removed.status).toBe(200)
    // Ended by the removal (they wait 30 s otherwise): before it answered, then sent on.
    for (const [name, wait] of Object.entries({
      session: held.session,
      key: held.key,
      app: held.app,
    })) {
      expect(await settledWithin(wait, SOON), name).toBe(true)
    }
    await expectSocketEnded(held.socket)
    const count = held.socket.messages.length
    await commentAfter(t)
    await expectEnded(held.session, 'session wait')
    await expectEnded(held.key, 'key wait')
    await expectEnded(held.app, 'app wait')
    heardNothingAfter(held.socket, count).toEqual([])
  })

  it('a logout ends its session’s socket and wait; the key’s and the app’s go on', async () => {
    const t = await team()
    const held = await holdOpen(t)
    const csrf = await csrfOf(t.person.cookie)
    const out = await call('/logout', { ...formPost({ _csrf: csrf }), cookie: t.person.cookie })
    expect(out.status).toBe(302)
    expect(await settledWithin(held.session, SOON)).toBe(true)
    await expectSocketEnded(held.socket)
    expect(await settledWithin(held.key, 200)).toBe(false)
    await commentAfter(t)
    await expectEnded(held.session, 'session wait')
    // Those of other credentials hear the comment.
    expect((await held.key).status).toBe(200)
    const app = await json(await held.app)
    expect(app.result.isError).toBeUndefined()
    expect(app.result.structuredContent.comments).toHaveLength(1)
  })

  it('revoking a key ends its waits alone', async () => {
    const t = await team()
    const held = await holdOpen(t)
    const keys = await json(await call('/auth/keys', { cookie: t.person.cookie }))
    const laptop = keys.keys.find((k: { name: string }) => k.name === 'laptop')
    const revoked = await call(`/auth/keys/${laptop.key_id}`, {
      method: 'DELETE',
      cookie: t.person.cookie,
    })
    expect(revoked.status).toBe(200)
    expect(await settledWithin(held.key, SOON)).toBe(true)
    await commentAfter(t)
    await expectEnded(held.key, 'key wait')
    expect((await held.session).status).toBe(200)
    expect(held.socket.messages).toContainEqual(expect.objectContaining({ type: 'comment' }))
    held.socket.socket.close()
    await held.app
  })

  it('disconnecting an app ends its waits alone', async () => {
    const t = await team()
    const held = await holdOpen(t)
    const grantId = grantOf(t.tokens.access_token)
    const csrf = await csrfOf(t.person.cookie)
    const ended = await call(`/settings/apps/${grantId}/revoke`, {
      ...formPost({ _csrf: csrf }),
      cookie: t.person.cookie,
    })
    expect(ended.status).toBe(302)
    expect(await settledWithin(held.app, SOON)).toBe(true)
    await commentAfter(t)
    await expectEnded(held.app, 'app wait')
    expect((await held.key).status).toBe(200)
    expect((await held.session).status).toBe(200)
    held.socket.socket.close()
  })
})

describe('a wait for a review', () => {
  it('ends with the key or the app that waits, before the request that ended it answers', async () => {
    const t = await team()
    const asked = await call(`/v1/canvases/${t.canvasId}/reviews`, {
      method: 'POST',
      key: t.ownerKey,
      json: { note: 'Waited on by the member' },
    })
    expect(asked.status).toBe(201)
    const { review_id } = await json(asked)
    const key = call(`/v1/reviews/${review_id}/wait?timeout_s=30`, { key: t.key })
    const app = mcp(t.tokens.access_token, 'tools/call', {
      name: 'wait_for_review',
      arguments: { review_id, timeout_s: 30 },
    })
    await listening(t.person.userId, t.canvasId, 2)
    const keys = await json(await call('/auth/keys', { cookie: t.person.cookie }))
    const laptop = keys.keys.find((k: { name: string }) => k.name === 'laptop')
    const revoked = await call(`/auth/keys/${laptop.key_id}`, {
      method: 'DELETE',
      cookie: t.person.cookie,
    })
    expect(revoked.status).toBe(200)
    expect(await settledWithin(key, SOON)).toBe(true)
    await expectEnded(key, 'key wait for a review')
    expect(await settledWithin(app, 200)).toBe(false)
    const csrf = await csrfOf(t.person.cookie)
    const ended = await call(`/settings/apps/${grantOf(t.tokens.access_token)}/revoke`, {
      ...formPost({ _csrf: csrf }),
      cookie: t.person.cookie,
    })
    expect(ended.status).toBe(302)
    expect(await settledWithin(app, SOON)).toBe(true)
    await expectEnded(app, 'app wait for a review')
  })
})
