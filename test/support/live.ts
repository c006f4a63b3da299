import { env, runInDurableObject } from 'cloudflare:test'
import { call, ORIGIN } from './api'

// A page's live socket as the tests hold it: opened with the live link the page was rendered
// with, keeping every message it hears.

export type Live = { socket: WebSocket; messages: unknown[]; closed: Promise<CloseEvent> }

/** The live link a page was rendered with. */
export async function liveLinkOf(path: string, cookie?: string) {
  const html = await (await call(path, { cookie })).text()
  const match = /data-live="([^"]+)"/.exec(html)
  return match ? match[1].replaceAll('&amp;', '&') : null
}

export async function open(link: string, origin = ORIGIN): Promise<Live> {
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

/**
 * How long a test waits for what should happen at once: a deadline for a loaded machine, not a
 * measure of speed (that is `npm run bench:live`'s). A wait returns as soon as the thing happens.
 */
export const SOON = 10_000

/**
 * Waits until the socket has heard `count` messages, or `withinMs` has passed, and returns what it
 * heard; a caller that expects fewer than `count` gives a shorter time than SOON.
 */
export async function heard(live: Live, count: number, withinMs = SOON) {
  const deadline = Date.now() + withinMs
  while (live.messages.length < count && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10))
  }
  return live.messages
}

/** Until the person's object records `count` tags listening on the canvas. */
export async function listening(userId: string, canvasId: string, count: number) {
  const stub = env.PEOPLE.get(env.PEOPLE.idFromName(userId))
  const deadline = Date.now() + SOON
  while (Date.now() < deadline) {
    const entry = await runInDurableObject(stub, (_, state) =>
      state.storage.get<{ tags: string[] }>(`canvas:${canvasId}`),
    )
    if ((entry?.tags.length ?? 0) >= count) return
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error('the waits never began')
}
