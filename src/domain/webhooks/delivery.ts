import { and, eq, exists, inArray, isNotNull, isNull, lt, ne, or, sql } from 'drizzle-orm'
import { logError } from '../../lib/log'
import { one, value } from '../../storage/db'
import { files, webhookDeliveries, webhooks } from '../../storage/schema'
import { send } from './send'
import type { WebhookEvent, WebhookMessage, WebhookQueue } from './events'
import type { Services } from '../services'

// The webhooks queue's consumer (docs/comments-and-webhooks.md). An event becomes one delivery per
// webhook of its workspace that listens for its type; each attempt of a delivery is a message of
// its own on the same queue: the first at once, each retry after a failure with a growing delay.
// The attempt's number travels in its message and is claimed in D1 before the request is sent, so a
// message the queue hands over twice sends nothing twice, and nothing is ever sent again once an
// attempt got a 2xx: that is recorded before the message is acknowledged.

/** A delivery is retried until this long after its event, then given up. */
export const RETRY_WINDOW_MS = 24 * 3600_000
/** How long an attempt holds its claim: far past its timeout, so only a dead one loses it. */
export const CLAIM_MS = 60_000
/** Finished deliveries are kept this long for the log, then dropped as new events come. */
export const DELIVERY_RETENTION_MS = 30 * 24 * 3600_000

/** Delay after the `attempt`th attempt failed: 30 s, 2 min, 8 min, 32 min, ~2 h, then 8 h each. */
export function retryDelayMs(attempt: number): number {
  return Math.min(30_000 * 4 ** (attempt - 1), 8 * 3600_000)
}

type Key = { webhookId: string; eventId: string }

/** What to do with a message: done (acknowledge it), or hand it back to the queue for later. */
export type Verdict = { retryAfterSeconds: number } | null

/** Handles one message; `redelivered`: the queue has handed it over before (a run died). */
export async function handleMessage(
  svc: Services,
  queue: WebhookQueue,
  message: WebhookMessage,
  redelivered: boolean,
): Promise<Verdict> {
  if (message.kind === 'event') return fanOut(svc, queue, message.event)
  if (message.kind === 'attempt') {
    const key = { webhookId: message.webhook_id, eventId: message.event_id }
    return attempt(svc, queue, key, message.attempt, redelivered)
  }
  logError({ webhook_message_unknown: JSON.stringify(message).slice(0, 200) })
  return null
}

/**
 * One delivery per listening webhook (none twice, should the queue hand the event over again),
 * and a message for the first attempt of each not yet attempted: each attempt is a message of its
 * own, so one run of the consumer makes a bounded number of requests however many webhooks
 * listen. Deliveries past their retention are the sweep's (sweepDeliveries).
 */
async function fanOut(svc: Services, queue: WebhookQueue, event: WebhookEvent): Promise<Verdict> {
  const db = svc.db
  const now = svc.now()
  const listening = and(
    eq(webhooks.workspaceId, event.workspace_id),
    // A test goes to its webhook alone, whatever it listens for.
    event.only
      ? eq(webhooks.webhookId, event.only)
      : exists(
          db
            .select(one)
            .from(sql`json_each(${webhooks.events})`)
            .where(sql`value = ${event.type}`),
        ),
    // Not to a webhook that leaves out what its own credential causes, when that is the cause.
    event.credential
      ? or(
          eq(webhooks.excludeSelf, false),
          isNull(webhooks.createdBy),
          ne(webhooks.createdBy, event.credential),
        )
      : undefined,
  )
  const [listeners, [digest]] = await db.batch([
    db.select({ webhookId: webhooks.webhookId }).from(webhooks).where(listening),
    db
      .select({ sha256: files.sha256 })
      .from(files)
      .where(eq(files.fileId, event.digest_of ?? '')),
  ])
  // Most events have no webhook to go to: that costs this one look.
  if (listeners.length === 0) return null
  const body = JSON.stringify({
    id: event.id,
    type: event.type,
    created_at: event.created_at,
    data: digest ? withDigest(event.data, digest.sha256) : event.data,
  })
  const [, pending] = await db.batch([
    db
      .insert(webhookDeliveries)
      .select((qb) =>
        qb
          .select({
            webhookId: webhooks.webhookId,
            eventId: value(webhookDeliveries.eventId, event.id),
            type: value(webhookDeliveries.type, event.type),
            body: value(webhookDeliveries.body, body),
            attempts: value(webhookDeliveries.attempts, 0),
            claimedUntil: value(webhookDeliveries.claimedUntil, null),
            lastStatus: value(webhookDeliveries.lastStatus, null),
            lastError: value(webhookDeliveries.lastError, null),
            nextAttemptAt: value(webhookDeliveries.nextAttemptAt, now),
            deliveredAt: value(webhookDeliveries.deliveredAt, null),
            createdAt: value(webhookDeliveries.createdAt, now),
          })
          .from(webhooks)
          .where(listening),
      )
      .onConflictDoNothing(),
    db
      .select({ webhookId: webhookDeliveries.webhookId })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.eventId, event.id), eq(webhookDeliveries.attempts, 0))),
  ])
  if (pending.length > 0) {
    await queue.sendBatch(
      pending.map(({ webhookId }) => ({
        body: { kind: 'attempt', webhook_id: webhookId, event_id: event.id, attempt: 1 } as const,
      })),
    )
  }
  return null
}

/**
 * Deletes up to `limit` deliveries older than their retention, webhook by webhook through
 * webhook_deliveries_created_idx (a range of each webhook's, no scan); answers how many.
 */
export async function sweepDeliveries(svc: Services, now: number, limit: number) {
  const db = svc.db
  const old = db
    .select({ webhookId: webhookDeliveries.webhookId, eventId: webhookDeliveries.eventId })
    .from(webhooks)
    .innerJoin(
      webhookDeliveries,
      and(
        eq(webhookDeliveries.webhookId, webhooks.webhookId),
        lt(webhookDeliveries.createdAt, now - DELIVERY_RETENTION_MS),
      ),
    )
    .limit(limit)
  const doomed = await old
  if (doomed.length === 0) return 0
  const [first, ...rest] = doomed.map((d) =>
    db
      .delete(webhookDeliveries)
      .where(
        and(eq(webhookDeliveries.webhookId, d.webhookId), eq(webhookDeliveries.eventId, d.eventId)),
      ),
  )
  await db.batch([first, ...rest])
  return doomed.length
}

/** `data.version` with its `sha256`, in the place the API's version object has it. */
function withDigest(data: Record<string, unknown>, sha256: string) {
  const { version, size, created_at, items } = data.version as Record<string, unknown>
  return { ...data, version: { version, size, created_at, sha256, items } }
}

/**
 * Attempt `n` of a delivery: claimed (only once, and only in its turn), sent, recorded, and on a
 * failure within the retry window the next attempt scheduled. One D1 round trip before the
 * request and one after.
 */
async function attempt(
  svc: Services,
  queue: WebhookQueue,
  key: Key,
  n: number,
  redelivered: boolean,
): Promise<Verdict> {
  const db = svc.db
  const now = svc.now()
  const d = webhookDeliveries
  const which = and(eq(d.webhookId, key.webhookId), eq(d.eventId, key.eventId))
  const inTurn =
    n === 1
      ? and(eq(d.attempts, 0), isNull(d.claimedUntil))
      : and(eq(d.attempts, n - 1), isNull(d.claimedUntil), isNotNull(d.nextAttemptAt))
  // An attempt whose run died holds its claim only until the claim lapses.
  const orphaned = and(eq(d.attempts, n), lt(d.claimedUntil, now))
  const [claimed, [target], [state]] = await db.batch([
    db
      .update(d)
      // Due again when the claim lapses, should this run die: the cron finds it then.
      .set({ attempts: n, claimedUntil: now + CLAIM_MS, nextAttemptAt: now + CLAIM_MS })
      .where(and(which, isNull(d.deliveredAt), or(inTurn, orphaned)))
      .returning({ body: d.body, createdAt: d.createdAt }),
    db
      .select({ url: webhooks.url, secret: webhooks.secret })
      .from(webhooks)
      .where(eq(webhooks.webhookId, key.webhookId)),
    db
      .select({
        attempts: d.attempts,
        claimedUntil: d.claimedUntil,
        nextAttemptAt: d.nextAttemptAt,
        deliveredAt: d.deliveredAt,
      })
      .from(d)
      .where(which),
  ])
  const delivery = claimed[0]
  if (!delivery || !target) {
    if (!state || state.deliveredAt !== null || state.attempts !== n) return null
    // Under way elsewhere (a duplicate message), or held by a run that died: ask again later.
    if (state.claimedUntil !== null) {
      return { retryAfterSeconds: Math.max(1, Math.ceil((state.claimedUntil - now) / 1000)) }
    }
    // Recorded, but the run died before it scheduled the next attempt: schedule it now (a
    // second message for it, should there be one, finds it claimed or done).
    if (redelivered && state.nextAttemptAt !== null) {
      await schedule(queue, key, n + 1, state.nextAttemptAt - now)
    }
    return null
  }
  const outcome = await send(svc, target, delivery.body)
  const done = svc.now()
  const delivered = outcome.status !== null && outcome.status >= 200 && outcome.status < 300
  const retryAt =
    !delivered && !outcome.final && done - delivery.createdAt < RETRY_WINDOW_MS
      ? done + retryDelayMs(n)
      : null
  await db
    .update(d)
    .set({
      claimedUntil: null,
      lastStatus: outcome.status,
      lastError: delivered ? null : outcome.error,
      deliveredAt: delivered ? done : null,
      nextAttemptAt: retryAt,
    })
    .where(and(which, eq(d.attempts, n)))
  if (retryAt !== null) await schedule(queue, key, n + 1, retryAt - done)
  return null
}

function schedule(queue: WebhookQueue, key: Key, n: number, delayMs: number) {
  const message = { kind: 'attempt', webhook_id: key.webhookId, event_id: key.eventId, attempt: n }
  return queue.send(message as WebhookMessage, {
    delaySeconds: Math.max(0, Math.ceil(delayMs / 1000)),
  })
}

/**
 * A batch from the queue: each message handled on its own, acknowledged when done, handed back
 * for later when asked to or when handling it failed (D1 unreachable, say).
 */
export async function deliverBatch(
  svc: Services,
  queue: WebhookQueue,
  batch: MessageBatch<WebhookMessage>,
) {
  await Promise.all(
    batch.messages.map(async (message) => {
      try {
        const verdict = await handleMessage(svc, queue, message.body, message.attempts > 1)
        if (verdict) message.retry({ delaySeconds: verdict.retryAfterSeconds })
        else message.ack()
      } catch (err) {
        logError({ webhook_message_failed: message.id }, err)
        message.retry({ delaySeconds: 30 })
      }
    }),
  )
}
