import { DurableObject } from 'cloudflare:workers'
import type { CanvasLive } from './canvas-live'
import type { AccessEnd, Watch } from '../lib/live-events'

// One Durable Object per person knows where their credentials are listening: the canvases on
// which a session of theirs holds a live socket, or a key, an app or a session waits for comments,
// under which tags. When one of their credentials ends (a removal from a workspace, a logout, a
// key revoked, an app disconnected), the ending asks this object, which tells exactly those
// canvases' objects to close the sockets and end the waits of that credential, and answers once
// they have: the request that ended it returns after its sockets and waits are gone.

type Entry = { workspaceId: string; tags: string[]; at: number }

// What is watched is kept a while after the socket or wait that put it here: a socket lives no
// longer than its session (30 days), and a stale entry costs a call that closes nothing.
const KEPT_MS = 31 * 24 * 3600_000

export class PersonLive extends DurableObject<Env> {
  /** A socket opened or a wait begun on a canvas, under `tags`. */
  async watch(watch: Watch): Promise<void> {
    const now = Date.now()
    const key = `canvas:${watch.canvasId}`
    const kept = await this.ctx.storage.get<Entry>(key)
    const tags = [...new Set([...(kept?.tags ?? []), ...watch.tags])]
    await this.ctx.storage.put(key, { workspaceId: watch.workspaceId, tags, at: now })
  }

  /** Ends what `end` names on every canvas where it listens; answers how many canvases it told. */
  async end(end: AccessEnd): Promise<number> {
    const now = Date.now()
    const entries = await this.ctx.storage.list<Entry>({ prefix: 'canvas:' })
    const told: Promise<unknown>[] = []
    for (const [key, entry] of entries) {
      if (entry.at < now - KEPT_MS) {
        await this.ctx.storage.delete(key)
        continue
      }
      const tags = endedTags(entry, end)
      if (tags.length === 0) continue
      const canvasId = key.slice('canvas:'.length)
      const namespace = this.env.LIVE as DurableObjectNamespace<CanvasLive>
      told.push(namespace.get(namespace.idFromName(canvasId)).endAccess(tags))
      const left = entry.tags.filter((t) => !tags.includes(t))
      if (left.length === 0) await this.ctx.storage.delete(key)
      else await this.ctx.storage.put(key, { ...entry, tags: left })
    }
    await Promise.all(told)
    return told.length
  }
}

/** The tags of `entry` that `end` ends: those it names, or all the person's in its workspace. */
function endedTags(entry: Entry, end: AccessEnd): string[] {
  if ('workspaceId' in end) return end.workspaceId === entry.workspaceId ? entry.tags : []
  if ('sessions' in end) return entry.tags.filter((t) => t.startsWith('session:'))
  return entry.tags.filter((t) => t === end.tag)
}
