import { env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
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
import { heard, liveLinkOf, open, SOON, type Live } from './support/live'

// Live canvases in workerd: the pages' live links, the canvas's Durable Object and its sockets.
// A page's socket hears each new version, once and in order; a link revoked or expired, a canvas
// made private, deleted or expired ends exactly the sockets it allowed; a bad or foreign link
// opens nothing.

/** The socket's close, or null if it is still open after SOON. */
async function closedSoon(live: Live) {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), SOON)))
  try {
    return await Promise.race([live.closed, late])
  } finally {
    clearTimeout(timer)
  }
}

/** Until the clock is past `at` (milliseconds since the epoch). */
async function past(at: number) {
  while (Date.now() <= at) await new Promise((r) => setTimeout(r, 20))
}

/**
 * The alarm for the sockets' expiries, and each socket's expiries, as the canvas's object keeps
 * them. The pages opened are counted reads, which the same alarm writes (docs/readership.md): a
 * write due is let happen first, and an alarm at no socket's expiry (the reads', or the end of the
 * day's readers) is none of the sockets'.
 */
async function objectState(canvasId: string) {
  const stub = env.LIVE.get(env.LIVE.idFromName(canvasId))
  const deadline = Date.now() + SOON
  for (;;) {
    const due = await runInDurableObject(stub, (_, state) =>
      state.storage.get<number>('views:flush_at'),
    )
    if (due === undefined || due > Date.now() || Date.now() > deadline) break
    await runDurableObjectAlarm(stub)
    await new Promise((r) => setTimeout(r, 20))
  }
  return runInDurableObject(stub, async (_, state) => {
    const alarm = await state.storage.getAlarm()
    const expiries = state
      .getWebSockets()
      .map((s) => s.deserializeAttachment() as { canvas: number | null; link: number | null })
    const times = expiries.flatMap((e) => [e?.canvas, e?.link])
    return { alarm: alarm !== null && times.includes(alarm) ? alarm : null, expiries }
  })
}

/** Runs the object's alarm now if the runtime has not run it yet (it runs it at its time). */
function runAlarm(canvasId: string) {
  return runDurableObjectAlarm(env.LIVE.get(env.LIVE.idFromName(canvasId)))
}

/** A temporary canvas that lives `seconds`, as TEMP_CANVAS_TTL says. */
async function shortLivedCanvas(account: Account, seconds: number) {
  const fileId = await upload(account.key, bytesOf('v1'))
  const res = await call('/v1/canvases', {
    method: 'POST',
    key: account.key,
    json: { file_id: fileId, title: 'Brief', ext: 'txt' },
    env: { TEMP_CANVAS_TTL: String(seconds) },
  })
  expect(res.status).toBe(201)
  return json(res)
}

/**
 * Runs `setup` with the first of `lives` (seconds) it finishes within: a canvas or link that
 * expires in 2 s lets a test wait little, but on a loaded machine opening its sockets can outlast
 * it. A run that did not finish with a second to spare closes its sockets and runs again with the next life; the
 * last one is taken as it is.
 */
async function withinLife<T extends { expiresAt: number; sockets: Live[] }>(
  lives: number[],
  setup: (seconds: number) => Promise<T>,
): Promise<T> {
  for (const [i, seconds] of lives.entries()) {
    const result = await setup(seconds)
    if (Date.now() < result.expiresAt - 1000 || i === lives.length - 1) return result
    for (const live of result.sockets) live.socket.close(1000)
  }
  throw new Error('no life given')
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
    expect(await heard(live, live.messages.length + 1)).toContain('pong')
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

  it('a share link that expires closes its sockets then, and no others; none hears a version after', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'v1', { permanent: true })
    const id = canvas.canvas_id
    const share = async (body: object) =>
      json(
        await call(`/v1/canvases/${id}/shares`, { method: 'POST', key: account.key, json: body }),
      )
    const [brief, lasting] = [await share({ expires_in: '3s' }), await share({})]
    const expiresAt = Date.parse(brief.expires_at)
    const short = await open((await liveLinkOf(`/s/${brief.token}`))!)
    const other = await open((await liveLinkOf(`/s/${lasting.token}`))!)
    const owner = await open((await liveLinkOf(`/c/${id}`, account.cookie))!)
    for (const live of [short, other, owner]) await heard(live, 1)
    // The socket keeps its expiry (it survives hibernation), and the one alarm is set for it. A
    // read that ends after that time may find the alarm run already (a loaded machine).
    const kept = await objectState(id)
    if (Date.now() < expiresAt) {
      expect(kept.alarm).toBe(expiresAt)
      expect(kept.expiries).toContainEqual({ canvas: null, link: expiresAt })
    }
    // An alarm before its time closes nothing and is set again for the same time.
    if (Date.now() < expiresAt) {
      expect(await runAlarm(id)).toBe(true)
      expect(short.socket.readyState).toBe(WebSocket.OPEN)
      expect((await objectState(id)).alarm).toBe(expiresAt)
    }
    await past(expiresAt)
    await runAlarm(id)
    const closed = await closedSoon(short)
    expect(closed?.code).toBe(4004)
    expect(closed?.reason).toBe('expired')
    expect(short.messages.at(-1)).toEqual({ type: 'gone', reason: 'expired' })
    // Nothing else expires: no alarm is left.
    expect((await objectState(id)).alarm).toBeNull()
    await newVersion(account, id, 'v2')
    for (const live of [other, owner]) {
      expect(await heard(live, 2)).toEqual([
        { type: 'version', version: 1 },
        { type: 'version', version: 2 },
      ])
      expect(live.socket.readyState).toBe(WebSocket.OPEN)
    }
    expect(short.messages).not.toContainEqual({ type: 'version', version: 2 })
    other.socket.close(1000)
    owner.socket.close(1000)
  })

  it('an alarm that runs late lets no version reach a socket whose link has expired', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'v1', { permanent: true })
    const id = canvas.canvas_id
    const brief = await json(
      await call(`/v1/canvases/${id}/shares`, {
        method: 'POST',
        key: account.key,
        json: { expires_in: '1s' },
      }),
    )
    const short = await open((await liveLinkOf(`/s/${brief.token}`))!)
    await heard(short, 1)
    // As if the runtime ran the alarm late: it has not run when the next version lands.
    const stub = env.LIVE.get(env.LIVE.idFromName(id))
    await runInDurableObject(stub, (_, state) => state.storage.deleteAlarm())
    await past(Date.parse(brief.expires_at))
    await newVersion(account, id, 'v2')
    const closed = await closedSoon(short)
    expect(closed?.code).toBe(4004)
    expect(short.messages).toEqual([
      { type: 'version', version: 1 },
      { type: 'gone', reason: 'expired' },
    ])
  })

  it("a temporary canvas's sockets close when it expires, whatever their access", async () => {
    const account = await newAccount()
    // The shortest life the three sockets can be opened within: on a loaded machine opening them
    // can outlast 2 s, and a canvas expired by then has no socket to close.
    const { id, expiresAt, sockets } = await withinLife([2, 6, 15], async (seconds) => {
      const canvas = await shortLivedCanvas(account, seconds)
      const id = canvas.canvas_id
      await call(`/v1/canvases/${id}`, {
        method: 'PATCH',
        key: account.key,
        json: { visibility: 'public' },
      })
      const share = await json(
        await call(`/v1/canvases/${id}/shares`, {
          method: 'POST',
          key: account.key,
          json: { expires_in: '7d' },
        }),
      )
      const sockets = [
        await open((await liveLinkOf(`/c/${id}`, account.cookie))!),
        await open((await liveLinkOf(`/c/${id}`))!),
        await open((await liveLinkOf(`/s/${share.token}`))!),
      ]
      for (const live of sockets) await heard(live, 1)
      return { id, expiresAt: Date.parse(canvas.expires_at), sockets }
    })
    // A link's socket expires with the earlier of the two: here the canvas.
    expect((await objectState(id)).alarm).toBe(expiresAt)
    await past(expiresAt)
    await runAlarm(id)
    for (const live of sockets) {
      const closed = await closedSoon(live)
      expect(closed?.code).toBe(4004)
      expect(live.messages.at(-1)).toEqual({ type: 'gone', reason: 'expired' })
    }
  })

  it('a temporary canvas made permanent keeps its sockets open past its old expiry', async () => {
    const account = await newAccount()
    const { id, expiresAt, sockets, alarm } = await withinLife([2, 6, 15], async (seconds) => {
      const canvas = await shortLivedCanvas(account, seconds)
      const id = canvas.canvas_id
      const owner = await open((await liveLinkOf(`/c/${id}`, account.cookie))!)
      await heard(owner, 1)
      const { alarm } = await objectState(id)
      return { id, expiresAt: Date.parse(canvas.expires_at), sockets: [owner], alarm }
    })
    const [owner] = sockets
    expect(alarm).toBe(expiresAt)
    const kept = await call(`/v1/canvases/${id}/permanent`, { method: 'POST', key: account.key })
    expect(kept.status).toBe(200)
    expect(await objectState(id)).toEqual({ alarm: null, expiries: [{ canvas: null, link: null }] })
    await past(expiresAt)
    await runAlarm(id)
    await newVersion(account, id, 'v2')
    expect(await heard(owner, 2)).toEqual([
      { type: 'version', version: 1 },
      { type: 'version', version: 2 },
    ])
    expect(owner.socket.readyState).toBe(WebSocket.OPEN)
    owner.socket.close(1000)
  })

  it("a socket's expiry is the Worker's to say: checked, and never taken from the client", async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'v1', { permanent: true })
    const id = canvas.canvas_id
    const link = (await liveLinkOf(`/c/${id}`, account.cookie))!
    const soon = String(Date.now() + 1000)
    const res = await call(link, {
      headers: {
        Upgrade: 'websocket',
        Origin: ORIGIN,
        'X-Live-Canvas-Expires': soon,
        'X-Live-Link-Expires': soon,
      },
    })
    expect(res.status).toBe(101)
    res.webSocket!.accept()
    expect(await objectState(id)).toEqual({ alarm: null, expiries: [{ canvas: null, link: null }] })
    res.webSocket!.close(1000)
    // The object itself refuses an expiry that is not a whole number of milliseconds, and closes
    // at once a socket whose expiry has passed.
    const stub = env.LIVE.get(env.LIVE.idFromName(id))
    const direct = (expires: string) =>
      stub.fetch('http://live/', {
        headers: {
          Upgrade: 'websocket',
          'X-Live-Tags': '["public"]',
          'X-Live-Link-Expires': expires,
        },
      })
    for (const bad of ['soon', '-1', '1.5', '1e12', '99999999999999999']) {
      expect((await direct(bad)).status, bad).toBe(400)
    }
    const late = await direct(String(Date.now() - 1))
    expect(late.status).toBe(101)
    const socket = late.webSocket!
    const closed = new Promise<CloseEvent>((resolve) => socket.addEventListener('close', resolve))
    socket.accept()
    expect((await closed).code).toBe(4004)
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
