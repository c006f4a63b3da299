import { createHmac } from 'node:crypto'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { launchBrowser } from './support/browser'
import { newDevAccount, sharedDevServer, SETUP_MS } from './support/dev-server'
import { startReceiver, type Received, type Receiver } from './support/receiver'
import { callApi } from './support/api.ts'

// The review loop end to end, against wrangler dev with its real queue: a person reading a share
// link comments on what an agent published; the workspace's webhook is called; the agent, over
// MCP with the SDK's own client, lists the comment, publishes a new version, replies and
// resolves; the person's open page shows the new version and the resolution without a reload.

let url: string
let receiver: Receiver
let browser: Awaited<ReturnType<typeof launchBrowser>>

beforeAll(async () => {
  ;[url, receiver, browser] = await Promise.all([
    sharedDevServer().then((server) => server.url),
    startReceiver(),
    launchBrowser(),
  ])
}, SETUP_MS)

afterAll(async () => {
  await browser?.close()
  await receiver?.stop()
})

async function arrivals(name: string, count: number): Promise<Received[]> {
  const deadline = Date.now() + 30_000
  for (;;) {
    const got = (await (await fetch(`${receiver.url}/received/${name}`)).json()) as Received[]
    if (got.length >= count) return got
    if (Date.now() > deadline) throw new Error(`${name}: ${got.length} of ${count} arrived`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

it('a person comments, the agent is called back, answers with a new version and resolves', async () => {
  const { key } = await newDevAccount(url, `loop-${crypto.randomUUID().slice(0, 8)}@example.com`)
  const api = async (path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const method = body === undefined ? 'GET' : 'POST'
    const res = await callApi(url, key, path, { method, headers, json: body })
    expect(res.status, `${path}: ${res.status}`).toBeLessThan(300)
    return res.json() as Promise<any>
  }

  // The agent publishes a report, shares it for comments, and asks to be called back.
  const agent = new Client({ name: 'review-agent', version: '1.0.0' })
  await agent.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  )
  await agent.listTools()
  const tool = async (name: string, args: Record<string, unknown>) => {
    const result = (await agent.callTool({ name, arguments: args })) as any
    expect(result.isError, result.content?.[0]?.text).toBeFalsy()
    return result.structuredContent
  }
  const report = '# Launch plan\n\nWe ship on Friday the 13th.\n'
  const canvas = await tool('publish', { content: report, filename: 'plan.md' })
  const link = await api(`/v1/canvases/${canvas.canvas_id}/shares`, { allow_comments: true })
  const hookName = `loop-${crypto.randomUUID().slice(0, 8)}`
  const webhook = await api('/v1/webhooks', {
    url: `${receiver.url}/hook/${hookName}`,
    events: ['comment.created', 'comment.replied', 'comment.resolved'],
    // Its own replies and resolves are not news to it.
    exclude_self: true,
  })

  // The person opens the link, and comments on a quote of it.
  const person = await browser.newPerson()
  try {
    const page = await person.context.newPage()
    await page.goto(`${url}/s/${link.token}`)
    await page.waitForSelector('[data-live-state=open]')
    const posted = await fetch(`${url}/share/${link.token}/comments`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        body: 'Friday the 13th? Pick another day.',
        name: 'Dana',
        anchor: { quote: { exact: 'Friday the 13th', prefix: 'We ship on ' } },
      }),
    })
    expect(posted.status).toBe(201)
    const comment = await posted.json()
    // The person's own page shows it as it lands.
    const shown = page.locator('.comment', { hasText: 'Pick another day.' })
    await shown.waitFor({ timeout: 10_000 })

    // The webhook is called, signed with the secret the workspace was given.
    const [delivery] = await arrivals(hookName, 1)
    const event = JSON.parse(delivery.body)
    expect(event).toMatchObject({
      type: 'comment.created',
      data: { canvas_id: canvas.canvas_id, comment: { comment_id: comment.comment_id } },
    })
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(delivery.headers['canvas-signature'])!
    const expected = createHmac('sha256', webhook.secret).update(`${t}.${delivery.body}`)
    expect(v1).toBe(expected.digest('hex'))

    // The agent reads the open comments, answers with a new version, replies and resolves.
    const listed = await tool('list_comments', { canvas_id: canvas.canvas_id })
    expect(listed.comments).toHaveLength(1)
    expect(listed.comments[0]).toMatchObject({
      comment_id: comment.comment_id,
      author: { name: 'Dana', kind: 'visitor' },
      anchor: { quote: { exact: 'Friday the 13th' } },
    })
    const edited = await tool('edit_canvas', {
      canvas_id: canvas.canvas_id,
      edits: [{ old: 'Friday the 13th', new: 'Tuesday the 17th' }],
    })
    expect(edited.version).toBe(2)
    await tool('reply_comment', {
      canvas_id: canvas.canvas_id,
      comment_id: comment.comment_id,
      body: 'Moved to Tuesday the 17th in version 2.',
    })
    await tool('resolve_comment', { canvas_id: canvas.canvas_id, comment_id: comment.comment_id })
    const after = await api(`/share/${link.token}/comments?status=all`)
    expect(after.comments[0]).toMatchObject({
      status: 'resolved',
      replies: [{ body: 'Moved to Tuesday the 17th in version 2.', author: { kind: 'agent' } }],
    })

    // The person's page, never reloaded, shows the new version, and the comment resolved: it
    // leaves the open comments, and stays there folded, its answer one click away.
    await page.getByText('Updated to v2.').waitFor({ timeout: 10_000 })
    await shown.locator('.body.clamped').waitFor({ timeout: 10_000 })
    expect(await page.textContent('[data-comments-count]')).toBe('0')
    await shown.getByRole('button', { name: 'Show the answer' }).click()
    await shown.getByText('Moved to Tuesday the 17th in version 2.').waitFor()

    // The person thanks the agent: that reply calls the agent back; its own reply and resolve
    // did not.
    const thanks = await fetch(
      `${url}/share/${link.token}/comments/${comment.comment_id}/replies`,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ body: 'Thanks!', name: 'Dana' }),
      },
    )
    expect(thanks.status).toBe(201)
    const calls = (await arrivals(hookName, 2)).map((d) => JSON.parse(d.body))
    expect(calls.map((c) => [c.type, c.data.actor])).toEqual([
      ['comment.created', { kind: 'visitor', name: 'Dana' }],
      ['comment.replied', { kind: 'visitor', name: 'Dana' }],
    ])
    await page
      .frameLocator('iframe')
      .first()
      .getByText('We ship on Tuesday the 17th.')
      .waitFor({ timeout: 10_000 })
  } finally {
    await person.close()
    await agent.close()
  }
})
