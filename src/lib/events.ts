// What a workspace's webhooks can be told (docs/comments-and-webhooks.md). Domain writes announce
// an event through an EventSink after the write has succeeded; the sink queues it and returns at
// once, so no request waits on webhooks, and a failure to queue is logged, never the write's
// failure.

export const EVENT_TYPES = [
  'canvas.version_created',
  'canvas.deleted',
  'share.exhausted',
  'comment.created',
  'comment.replied',
  'comment.resolved',
  'review.requested',
  'review.approved',
  'review.changes_requested',
  // Every event of the audit log (docs/teams.md#the-audit-log), its data the event itself.
  'audit.event',
] as const

export type EventType = (typeof EVENT_TYPES)[number]

/** The event a webhook's test sends it alone, whatever it listens for. */
export const TEST_EVENT = 'webhook.test'

/**
 * Who caused an event, as its data names it: a member's session, an API key (`key_id`), an app a
 * member connected (`client_id`), a share link's reader, or the service itself.
 */
export type EventActor = {
  kind: 'member' | 'key' | 'agent' | 'visitor' | 'system'
  name: string
  key_id?: string
  client_id?: string
}

export type DomainEvent = {
  /** Its id when the caller must know it (a test's answer names it); else a new one. */
  id?: string
  type: EventType | typeof TEST_EVENT
  /** Whose webhooks hear of it. */
  workspaceId: string
  /** The event's `data`: the objects the API answers with (a canvas, a version, a share link). */
  data: Record<string, unknown>
  /**
   * A file whose digest completes `data.version` (its `sha256`): read when the event is sent, and
   * only if a webhook listens, so the write itself reads nothing more.
   */
  digestOf?: string
  actor: EventActor
  /**
   * The credential that caused it (`key:<id>`, `grant:<id>`), never sent: a webhook made with
   * `exclude_self` by the same credential is not told of it.
   */
  credential?: string
  /** The one webhook to tell, whatever it listens for (a test). */
  only?: string
}

export type EventSink = (event: DomainEvent) => void
