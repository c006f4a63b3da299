import type { EventSink } from '../lib/events'
import type { LiveNotifier } from '../lib/live-events'
import type { Settings } from '../lib/settings'
import type { Database } from '../storage/db'

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
}

/** The caller of a workspace-scoped operation, from an API key or a web session. */
export type Actor = {
  userId: string
  workspaceId: string
}

export const iso = (ms: number) => new Date(ms).toISOString()
export const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms))
