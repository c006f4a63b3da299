import type { EventSink } from '../lib/events'
import type { ViewCounter } from '../lib/views'
import type { AccessWatch, CommentWaiter, LiveNotifier } from '../lib/live-events'
import { readSettings, type Bindings, type Settings } from '../lib/settings'
import { database, type Database } from '../storage/db'

/** What domain code may touch: no Hono context, so the cron job and tests call it the same way. */
export type Services = {
  db: Database
  bucket: R2Bucket
  settings: Settings
  now: () => number
  /** Open viewers of a canvas; absent where nobody can be watching (the cron sweep). */
  live?: LiveNotifier
  /** The workspace's webhooks, told of a write after it succeeded; absent where none listen. */
  events?: EventSink
  /** Counts a person's read of a canvas (docs/readership.md); absent where nothing is counted. */
  views?: ViewCounter
  /** Waits for a canvas's comments to change (an agent's long poll); absent where none waits. */
  waitForComment?: CommentWaiter
  /**
   * Where a person's credentials listen (live sockets, waits), and their end: a credential that
   * ends reaches them before the request that ended it answers. Absent where none listens.
   */
  access?: AccessWatch
  /**
   * Files this request stored itself, by id: their bytes (held by the request already, not
   * copied) and their type, so that a version made of them is indexed without reading them back.
   */
  stored?: Map<string, { bytes: ArrayBuffer; mime: string }>
  /**
   * Runs work after the response, off its critical path (a search reading older canvases' text);
   * absent where there is no response to wait for.
   */
  later?: (work: Promise<unknown>) => void
}

/**
 * The services over the Worker's bindings: the one place they are made, for a request, the cron
 * job, the queue and the tests alike. `db` may be a D1 session (a request's, for read
 * replication) or a metered binding (the sweep's); the database's own binding by default.
 */
export function servicesOf(
  env: Bindings,
  parts: {
    db?: D1Database | D1DatabaseSession
    live?: LiveNotifier
    events?: EventSink
    waitForComment?: CommentWaiter
    views?: ViewCounter
    access?: AccessWatch
    later?: (work: Promise<unknown>) => void
  } = {},
): Services {
  return {
    db: database(parts.db ?? env.DB),
    bucket: env.BUCKET,
    settings: readSettings(env),
    now: Date.now,
    stored: new Map(),
    ...(parts.live && { live: parts.live }),
    ...(parts.events && { events: parts.events }),
    ...(parts.waitForComment && { waitForComment: parts.waitForComment }),
    ...(parts.views && { views: parts.views }),
    ...(parts.access && { access: parts.access }),
    ...(parts.later && { later: parts.later }),
  }
}

export const iso = (ms: number) => new Date(ms).toISOString()
export const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms))
