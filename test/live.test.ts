import { env, runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import {
  bytesOf,
  browse,
  call,
  csrfOf,
  formPost,
  json,
  newAccount,
  newCanvas,
  ORIGIN,
  upload,
  type Account,
} from './support/api'

// Live canvases in workerd: the pages' live links, the canvas's Durable Object and its sockets.
// A page's socket hears each new version, once and in order; a link revoked, a canvas made private
// or deleted ends exactly the sockets it allowed; a bad or foreign link opens nothing.

type Live = { socket: WebSocket; messages: unknown[]; closed: Promise<CloseEvent> }

/** The live link a page was rendered with. */
async function liveLinkOf(path: string, cookie?: string) {
  const html = await (await call(path, { cookie })).text()
  const match = /data-live="([^"]+)"/.exec(html)
  return match ? match[1].replaceAll('&amp;', '&') : null
}

async function open(link: string, origin = ORIGIN): Promise<Live> {
  const res = await call(link, { headers: { Upgrade: 'websocket', Origin: origin } })
  if (res.status !== 101) throw new Error(`no socket: ${res.status} ${await res.text()}`)
  const socket = res.webSocket!
  const messages: unknown[] = []
  const closed = new Promise<CloseEvent>((resolve) => socket.addEventListener('close', resolve))
  socket.addEventListener('message', (e) => {
    messages.push(typeof e.data === 'string' && e.data !== 'pong' ? JSON.parse(e.data) : e.data)
  })
  socket.accept()
  return { socket, messages, closed }
}

/** Waits until the socket has heard `count` messages. */
async function heard(live: Live, count: number) {
  for (let i = 0; i < 200 && live.messages.length < count; i++) {
    await new Promise((r) => setTimeout(r, 10))
  }
  return live.messages
}

async function newVersion(account: Account, canvasId: string, text: string) {
  const fileId = await upload(account.key, bytesOf(text))
  const res = await call(`/v1/canvases/${canvasId}`, {
    method: 'PATCH',
    key: account.key,
    json: { file_id: fileId },
  })
  expect(res.status).toBe(200)
}

describe('live canvases', () => {
  it("the owner's page hears each new version once and in order, and gets its frame", async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'v1', { title: 'Live' })
    const link = (await liveLinkOf(`/c/${canvas.canvas_id}`, account.cookie))!
    expect(link).toMatch(new RegExp(`^${ORIGIN}/_live/${canvas.canvas_id}\\?g=o\\.`))
    const live = await open(link)
    // On connecting, the current version: a page that missed one catches up.
    expect(await heard(live, 1)).toEqual([{ type: 'version', version: 1 }])
    for (const n of [2, 3, 4]) await newVersion(account, canvas.canvas_id, `v${n}`)
    expect(await heard(live, 4)).toEqual(
      [1, 2, 3, 4].map((version) => ({ type: 'version', version })),
    )
    const frame = await json(await call(link.replace('?', '/frame?')))
    expect(frame.version).toBe(4)
    expect(frame.src).toContain(`/_frame/${canvas.canvas_id}/4?`)
    expect((await call(frame.src)).status).toBe(200)
    // Pings are answered by the runtime, without waking the object.
    live.socket.send('ping')
    for (let i = 0; i < 100 && !live.messages.includes('pong'); i++) {
      await new Promise((r) => setTimeout(r, 10))
    }
    expect(live.messages).toContain('pong')
    live.socket.close(1000)
  })

  it('fans out to many sockets, tagged by the access each was opened under', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'v1')
    const id = canvas.canvas_id
    await call(`/v1/canvases/${id}`, {
      method: 'PATCH',
      key: account.key,
      json: { visibility: 'public' },
    })
    const publicLink = (await liveLinkOf(`/c/${id}`))!
    expect(publicLink).toContain('?g=p&')
    const viewers = await Promise.all(Array.from({ length: 40 }, () => open(publicLink)))
    const owner = await open((await liveLinkOf(`/c/${id}`, account.cookie))!)
    const stub = env.LIVE.get(env.LIVE.idFromName(id))
    // What survives hibernation is the sockets and their tags; the object keeps nothing else.
    const tags = await runInDurableObject(stub, (_, state) => ({
      all: state.getWebSockets().length,
      public: state.getWebSockets('public').length,
      owner: state.getWebSockets('owner').length,
    }))
    expect(tags).toEqual({ all: 41, public: 40, owner: 1 })
    await newVersion(account, id, 'v2')
    for (const viewer of [...viewers, owner]) {
      expect(await heard(viewer, 2)).toEqual([
        { type: 'version', version: 1 },
        { type: 'version', version: 2 },
      ])
    }
    // Made private: the public sockets are told and closed; the owner's stays.
    await call(`/v1/canvases/${id}`, {
      method: 'PATCH',
      key: account.key,
      json: { visibility: 'private' },
    })
    for (const viewer of viewers) {
      expect((await viewer.closed).code).toBe(4002)
      expect(viewer.messages.at(-1)).toEqual({ type: 'gone', reason: 'private' })
    }
    expect(owner.socket.readyState).toBe(WebSocket.OPEN)
    // A public link opens nothing any more.
    expect((await call(publicLink, { headers: { Upgrade: 'websocket' } })).status).toBe(404)
    // Deleted: the owner's socket too.
    await call(`/v1/canvases/${id}`, { method: 'DELETE', key: account.key })
    expect((await owner.closed).code).toBe(4001)
    expect(owner.messages.at(-1)).toEqual({ type: 'gone', reason: 'deleted' })
  })

  it('a share link follows while it lives; revoking it closes its sockets and no others', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'v1')
    const id = canvas.canvas_id
    const share = async (body: object) =>
      json(
        await call(`/v1/canvases/${id}/shares`, { method: 'POST', key: account.key, json: body }),
      )
    const [first, second, pinned, limited] = [
      await share({}),
      await share({ password: 'open sesame' }),
      await share({ version: 1 }),
      await share({ max_views: 5 }),
    ]
    const firstLink = (await liveLinkOf(`/s/${first.token}`))!
    const secondPage = await browse(`/s/${second.token}`, formPost({ password: 'open sesame' }))
    const secondLink = /data-live="([^"]+)"/
      .exec(await secondPage.text())![1]
      .replaceAll('&amp;', '&')
    // A pinned link's page shows one version, and a limited link's page is one counted view.
    expect(await liveLinkOf(`/s/${pinned.token}`)).toBeNull()
    expect(await liveLinkOf(`/s/${limited.token}`)).toBeNull()
    const views = async () => {
      const list = await json(await call(`/v1/canvases/${id}/shares`, { key: account.key }))
      return Object.fromEntries(list.shares.map((s: any) => [s.token, s.view_count]))
    }
    const before = await views()
    const a = await open(firstLink)
    const b = await open(secondLink)
    await newVersion(account, id, 'v2')
    expect(await heard(a, 2)).toEqual([
      { type: 'version', version: 1 },
      { type: 'version', version: 2 },
    ])
    expect(await heard(b, 2)).toHaveLength(2)
    // A live update is not a view: the counts are what the two page views made them.
    await call(firstLink.replace('?', '/frame?'))
    expect(await views()).toEqual(before)
    const csrf = await csrfOf(account.cookie)
    await call(`/c/${id}/shares/${first.token}/revoke`, {
      ...formPost({ _csrf: csrf }),
      cookie: account.cookie,
    })
    expect((await a.closed).code).toBe(4003)
    expect(a.messages.at(-1)).toEqual({ type: 'gone', reason: 'revoked' })
    expect(b.socket.readyState).toBe(WebSocket.OPEN)
    expect((await call(firstLink, { headers: { Upgrade: 'websocket' } })).status).toBe(404)
    b.socket.close(1000)
  })

  it('a notify that fails never fails the write; it is logged', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'v1')
    const logged: string[] = []
    const original = console.error
    console.error = (...args: unknown[]) => void logged.push(args.join(' '))
    try {
      // An object that cannot be reached: the write stands, and the failure is a log line.
      const down = {
        idFromName: (name: string) => env.LIVE.idFromName(name),
        get: () => ({ notify: () => Promise.reject(new Error('object unreachable')) }),
      } as unknown as typeof env.LIVE
      const fileId = await upload(account.key, bytesOf('v2'))
      const res = await call(`/v1/canvases/${canvas.canvas_id}`, {
        method: 'PATCH',
        key: account.key,
        json: { file_id: fileId },
        env: { LIVE: down },
      })
      expect(res.status).toBe(200)
      expect((await json(res)).version).toBe(2)
    } finally {
      console.error = original
    }
    expect(logged.join('\n')).toMatch(/live_notify_failed.*object unreachable/)
  })

  it('refuses a link that is forged, expired, for another canvas, another page, or no socket', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'v1')
    const other = await newCanvas(account.key, 'other')
    const link = (await liveLinkOf(`/c/${canvas.canvas_id}`, account.cookie))!
    const upgrade = { headers: { Upgrade: 'websocket', Origin: ORIGIN } }
    const status = async (path: string, init: object = upgrade) => (await call(path, init)).status
    expect(await status(link.replace(/sig=[0-9a-f]+/, 'sig=' + '0'.repeat(64)))).toBe(403)
    expect(await status(link.replace(canvas.canvas_id, other.canvas_id))).toBe(403)
    expect(await status(link.replace(/exp=\d+/, 'exp=9999999999'))).toBe(403)
    expect(await status(link.replace('g=o.', 'g=p.'))).toBe(403)
    expect(
      await status(link, { headers: { Upgrade: 'websocket', Origin: 'https://evil.example' } }),
    ).toBe(403)
    expect(await status(link, {})).toBe(400)
    // Logged out: the session the link names no longer holds.
    await call('/logout', {
      ...formPost({ _csrf: await csrfOf(account.cookie) }),
      cookie: account.cookie,
    })
    expect(await status(link)).toBe(404)
  })
})
