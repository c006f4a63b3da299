import { describe, expect, it } from 'vitest'
import { call, errorOf, json, newAccount, newCanvas, newKey } from './support/api'
import { connect, ok } from './support/mcp'

// An agent waiting for a person's review (docs/comments-and-webhooks.md): a wait answers as soon
// as a comment or reply lands, woken by the canvas's Durable Object, or with nothing at its
// timeout; the API's route and MCP's wait_for_comments alike.

const comment = (key: string, canvasId: string, body: string) =>
  call(`/v1/canvases/${canvasId}/comments`, { method: 'POST', key, json: { body } })

/** Long enough that an answer before it came from being woken, not from the timeout. */
const LONG_S = 20

describe('waiting for comments', () => {
  it('answers as soon as a comment lands, with it, and where to wait from next', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'Review me')
    const person = await newKey(account.cookie)
    const started = Date.now()
    const waiting = call(`/v1/canvases/${canvas.canvas_id}/comments/wait?timeout_s=${LONG_S}`, {
      key: account.key,
    })
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect((await comment(person, canvas.canvas_id, 'Looks off on page 2')).status).toBe(201)
    const res = await waiting
    expect(res.status).toBe(200)
    const news = await json(res)
    expect(Date.now() - started).toBeLessThan((LONG_S - 5) * 1000)
    expect(news.comments.map((c: { body: string }) => c.body)).toEqual(['Looks off on page 2'])
    // From the answer's `since`, that comment is old news: a reply to it is new.
    const again = call(
      `/v1/canvases/${canvas.canvas_id}/comments/wait?timeout_s=${LONG_S}&since=${news.since}`,
      { key: account.key },
    )
    await new Promise((resolve) => setTimeout(resolve, 300))
    await call(`/v1/canvases/${canvas.canvas_id}/comments/${news.comments[0].comment_id}/replies`, {
      method: 'POST',
      key: person,
      json: { body: 'Fixed it' },
    })
    const replied = await json(await again)
    expect(replied.comments[0].replies.map((r: { body: string }) => r.body)).toEqual(['Fixed it'])
  })

  it('answers at once with what came after since, and with nothing at its timeout', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'Quiet')
    const path = `/v1/canvases/${canvas.canvas_id}/comments/wait`
    const none = await json(await call(`${path}?timeout_s=1`, { key: account.key }))
    expect(none.comments).toEqual([])
    expect(Date.parse(none.since)).toBeGreaterThan(0)
    await comment(account.key, canvas.canvas_id, 'Earlier')
    const earlier = await json(
      await call(`${path}?since=2000-01-01T00:00:00Z&timeout_s=${LONG_S}`, { key: account.key }),
    )
    expect(earlier.comments).toHaveLength(1)
  })

  it('refuses a malformed since or timeout, saying why', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'x')
    const path = `/v1/canvases/${canvas.canvas_id}/comments/wait`
    for (const query of ['since=yesterday', 'timeout_s=0', 'timeout_s=61', 'timeout_s=abc']) {
      const res = await call(`${path}?${query}`, { key: account.key })
      expect(res.status, query).toBe(400)
      expect(await json(res), query).toEqual(errorOf('invalid_request', /^(since|timeout_s): /))
    }
    const other = await newAccount()
    const theirs = await call(`${path}?timeout_s=1`, { key: other.key })
    expect(theirs.status).toBe(404)
  })

  it('over MCP: wait_for_comments is woken by a comment posted through a share link', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'By an agent')
    const link = await json(
      await call(`/v1/canvases/${canvas.canvas_id}/shares`, {
        method: 'POST',
        key: account.key,
        json: { allow_comments: true },
      }),
    )
    const agent = await connect(account.key)
    const started = Date.now()
    const waiting = ok(agent, 'wait_for_comments', {
      canvas_id: canvas.canvas_id,
      timeout_s: LONG_S,
    })
    await new Promise((resolve) => setTimeout(resolve, 300))
    const posted = await call(`/share/${link.token}/comments`, {
      method: 'POST',
      json: { body: 'Please shorten', name: 'Grace' },
    })
    expect(posted.status).toBe(201)
    const news = await waiting
    expect(Date.now() - started).toBeLessThan((LONG_S - 5) * 1000)
    expect(news.comments.map((c: { body: string }) => c.body)).toEqual(['Please shorten'])
    await agent.close()
  })
})
