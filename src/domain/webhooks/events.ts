import { newId } from '../../lib/crypto'
import type { DomainEvent, EventActor, EventSink, EventType, TEST_EVENT } from '../../lib/events'
import { logError } from '../../lib/log'
import { iso } from '../services'
import { type ActingAs } from '../actor'

// The messages of the webhooks queue: an event announced by a write, and later attempts of one
// delivery scheduled by the consumer itself (domain/webhooks/delivery.ts).

/** An event as its webhooks receive it (`id`, `type`, `created_at`, `data`), and whose it is. */
export type WebhookEvent = {
  id: string
  type: EventType | typeof TEST_EVENT
  created_at: string
  workspace_id: string
  data: Record<string, unknown>
  /** A file whose digest is the `sha256` of `data.version` (lib/events.ts). */
  digest_of?: string
  /** The credential that caused it (lib/events.ts), for the webhooks that leave out their own. */
  credential?: string
  /** The one webhook to tell (a test). */
  only?: string
}

/** An actor's part in the events it causes: as their data names it, and its credential. */
export function eventActor(by: ActingAs): { actor: EventActor; credential?: string } {
  if (by.grantId) {
    const actor = { kind: by.kind, name: by.name, client_id: by.clientId }
    return { actor, credential: `grant:${by.grantId}` }
  }
  if (by.keyId) {
    return {
      actor: { kind: by.kind, name: by.name, key_id: by.keyId },
      credential: `key:${by.keyId}`,
    }
  }
  return { actor: { kind: by.kind, name: by.name } }
}

export type WebhookMessage =
  | { kind: 'event'; event: WebhookEvent }
  | { kind: 'attempt'; webhook_id: string; event_id: string; attempt: number }

export type WebhookQueue = Queue<WebhookMessage>

/** A new event's id, as its body's `id` names it. */
export const newEventId = () => `evt_${newId()}`

/** The event with its id (a new one unless it has one) and time, as one queue message. */
export function eventMessage(event: DomainEvent, now: number): WebhookMessage {
  return {
    kind: 'event',
    event: {
      id: event.id ?? newEventId(),
      type: event.type,
      created_at: iso(now),
      workspace_id: event.workspaceId,
      // The audit log's events name their actor already, in the log's own words.
      data: 'actor' in event.data ? event.data : { ...event.data, actor: event.actor },
      ...(event.digestOf ? { digest_of: event.digestOf } : {}),
      ...(event.credential ? { credential: event.credential } : {}),
      ...(event.only ? { only: event.only } : {}),
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
