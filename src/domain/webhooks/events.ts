import { newId } from '../../lib/crypto'
import type { DomainEvent, EventSink, EventType } from '../../lib/events'
import { logError } from '../../lib/log'
import { iso } from '../services'

// The messages of the webhooks queue: an event announced by a write, and later attempts of one
// delivery scheduled by the consumer itself (domain/webhooks/delivery.ts).

/** An event as its webhooks receive it (`id`, `type`, `created_at`, `data`), and whose it is. */
export type WebhookEvent = {
  id: string
  type: EventType
  created_at: string
  workspace_id: string
  data: Record<string, unknown>
  /** A file whose digest is the `sha256` of `data.version` (lib/events.ts). */
  digest_of?: string
}

export type WebhookMessage =
  | { kind: 'event'; event: WebhookEvent }
  | { kind: 'attempt'; webhook_id: string; event_id: string; attempt: number }

export type WebhookQueue = Queue<WebhookMessage>

/** The event with its id and time, as one queue message. */
export function eventMessage(event: DomainEvent, now: number): WebhookMessage {
  return {
    kind: 'event',
    event: {
      id: `evt_${newId()}`,
      type: event.type,
      created_at: iso(now),
      workspace_id: event.workspaceId,
      data: event.data,
      ...(event.digestOf ? { digest_of: event.digestOf } : {}),
    },
  }
}

/**
 * The sink a request's writes announce events to: each is sent to the queue under `defer`
 * (waitUntil, after the response); a failure is logged, as the write has happened regardless.
 */
export function queueEvents(
  queue: WebhookQueue | undefined,
  defer: (work: Promise<unknown>) => void,
  now: () => number,
): EventSink {
  return (event) => {
    if (!queue) return
    defer(
      queue.send(eventMessage(event, now())).catch((err: unknown) => {
        logError({ webhook_event_lost: event.type, workspace_id: event.workspaceId }, err)
      }),
    )
  }
}
