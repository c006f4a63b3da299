// What a workspace's webhooks can be told (docs/comments-and-webhooks.md). Domain writes announce
// an event through an EventSink after the write has succeeded; the sink queues it and returns at
// once, so no request waits on webhooks, and a failure to queue is logged, never the write's
// failure.

export const EVENT_TYPES = [
  'canvas.version_created',
  'canvas.deleted',
  'share.exhausted',
  // Announced by comments once they exist: a webhook may subscribe to it ahead of them.
  'comment.created',
  // Every event of the audit log (docs/teams.md#the-audit-log), its data the event itself.
  'audit.event',
] as const

export type EventType = (typeof EVENT_TYPES)[number]

export type DomainEvent = {
  type: EventType
  /** Whose webhooks hear of it. */
  workspaceId: string
  /** The event's `data`: the objects the API answers with (a canvas, a version, a share link). */
  data: Record<string, unknown>
  /**
   * A file whose digest completes `data.version` (its `sha256`): read when the event is sent, and
   * only if a webhook listens, so the write itself reads nothing more.
   */
  digestOf?: string
}

export type EventSink = (event: DomainEvent) => void
