import { and, asc, isNotNull, isNull, lt } from 'drizzle-orm'
import { webhookDeliveries } from '../../storage/schema'
import type { WebhookMessage, WebhookQueue } from './events'
import type { Services } from '../services'

// The cron's backstop for webhooks (docs/comments-and-webhooks.md). Each step of a delivery is a
// queue message, and a message can be lost: the queue gives up on one after its retries (D1
// unreachable for a while), or sending the next one failed. A delivery whose next step is overdue
// by RESCUE_AFTER_MS is sent that step again; should the original turn up after all, the attempt's
// claim lets only one of the two send it.

export const RESCUE_AFTER_MS = 5 * 60_000
/** Deliveries rescued per run: the cron runs every 15 minutes, and a queue batch holds 100. */
const RESCUED_PER_RUN = 100

/** Queues the lost next step of each overdue delivery; answers how many. */
export async function rescueDeliveries(svc: Services, queue: WebhookQueue, now: number) {
  const d = webhookDeliveries
  // By the partial index of deliveries under way: only the overdue ones are read.
  const overdue = await svc.db
    .select({
      webhookId: d.webhookId,
      eventId: d.eventId,
      attempts: d.attempts,
      claimedUntil: d.claimedUntil,
    })
    .from(d)
    .where(
      and(
        isNotNull(d.nextAttemptAt),
        lt(d.nextAttemptAt, now - RESCUE_AFTER_MS),
        isNull(d.deliveredAt),
      ),
    )
    .orderBy(asc(d.nextAttemptAt))
    .limit(RESCUED_PER_RUN)
  if (overdue.length === 0) return 0
  await queue.sendBatch(
    overdue.map((row) => ({
      body: {
        kind: 'attempt',
        webhook_id: row.webhookId,
        event_id: row.eventId,
        // A lapsed claim is its own attempt taken over; else the attempt after the last.
        attempt: row.claimedUntil !== null ? row.attempts : row.attempts + 1,
      } satisfies WebhookMessage,
    })),
  )
  return overdue.length
}
