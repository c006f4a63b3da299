import { and, count, desc, eq, sql } from 'drizzle-orm'
import { AppError } from '../../lib/errors'
import { EVENT_TYPES, TEST_EVENT, type EventType } from '../../lib/events'
import { newId, randomBase62 } from '../../lib/crypto'
import { seal } from '../../lib/secret-box'
import { secretFor } from '../../lib/settings'
import { publicUrlProblem } from '../../lib/public-url'
import type { Delivery, Webhook } from '../../schema/responses'
import { value } from '../../storage/db'
import { webhookDeliveries, webhooks, workspaces } from '../../storage/schema'
import { iso, isoOrNull, type Services } from '../services'
import { type Actor } from '../actor'
import { announceAudit, recordOf } from '../audit/record'
import { resolvePublicHost } from '../public-dns'
import { eventActor, newEventId } from './events'

// A workspace's webhooks (docs/comments-and-webhooks.md): made, listed, deleted, and the log of
// what was sent.

/** Webhooks a workspace may have: each event is sent to each of them. */
export const MAX_WEBHOOKS = 20
/** Deliveries a webhook's log shows, newest first. */
export const DELIVERIES_SHOWN = 100

const webhookNotFound = () => new AppError('webhook_not_found', 'webhook not found')

const FIELDS = {
  webhookId: webhooks.webhookId,
  url: webhooks.url,
  events: webhooks.events,
  excludeSelf: webhooks.excludeSelf,
  createdAt: webhooks.createdAt,
}

type WebhookRow = {
  webhookId: string
  url: string
  events: string
  excludeSelf: boolean
  createdAt: number
}

export function presentWebhook(row: WebhookRow): Webhook {
  return {
    webhook_id: row.webhookId,
    url: row.url,
    events: parseEvents(row.events),
    exclude_self: row.excludeSelf,
    created_at: iso(row.createdAt),
  }
}

/** The stored list, in the order the API names the types; anything unknown is left out. */
export function parseEvents(stored: string): EventType[] {
  const listed = new Set(JSON.parse(stored) as string[])
  return EVENT_TYPES.filter((type) => listed.has(type))
}

export type CreateWebhookInput = { url: string; events: EventType[]; exclude_self?: boolean }

/**
 * The webhook and its secret, shown this once. Inserted in one statement only while the
 * workspace has fewer than MAX_WEBHOOKS, so two at once cannot pass the limit together.
 */
export async function createWebhook(svc: Services, actor: Actor, input: CreateWebhookInput) {
  const { credential } = eventActor(actor.by)
  if (input.exclude_self && !credential) {
    throw new AppError(
      'invalid_request',
      'exclude_self: only a webhook made with an API key or by an app leaves out its own events',
    )
  }
  const problem = publicUrlProblem(input.url, svc.settings.webhookAllowLocal)
  if (problem) throw new AppError('invalid_request', `url: ${problem}`)
  const url = new URL(input.url)
  // A name that does not resolve yet may be set up later: each attempt asks again.
  const dns = await resolvePublicHost(svc, url)
  if (dns.refused) throw new AppError('invalid_request', `url: ${dns.refused}`)
  const key = secretFor('WEBHOOK_ENCRYPTION_KEY', svc.settings.webhookEncryptionKey)
  const secret = `whsec_${randomBase62(40)}`
  const row: WebhookRow = {
    webhookId: newId(),
    url: url.href,
    events: JSON.stringify(EVENT_TYPES.filter((type) => input.events.includes(type))),
    excludeSelf: input.exclude_self ?? false,
    createdAt: svc.now(),
  }
  const db = svc.db
  const sealed = await seal(key, secret)
  const held = db
    .select({ n: count() })
    .from(webhooks)
    .where(eq(webhooks.workspaceId, actor.workspaceId))
  const [inserted, recorded] = await db.batch([
    db
      .insert(webhooks)
      .select((qb) =>
        qb
          .select({
            webhookId: value(webhooks.webhookId, row.webhookId),
            workspaceId: workspaces.workspaceId,
            url: value(webhooks.url, row.url),
            events: value(webhooks.events, row.events),
            secret: value(webhooks.secret, sealed),
            createdAt: value(webhooks.createdAt, row.createdAt),
            createdBy: value(webhooks.createdBy, credential ?? null),
            excludeSelf: value(webhooks.excludeSelf, row.excludeSelf),
          })
          .from(workspaces)
          .where(
            and(eq(workspaces.workspaceId, actor.workspaceId), sql`(${held}) < ${MAX_WEBHOOKS}`),
          ),
      )
      .returning({ webhookId: webhooks.webhookId }),
    // Only the host: a webhook's address may hold a secret in its path or query.
    recordOf(svc, actor, {
      action: 'webhook.created',
      target: { type: 'webhook', id: row.webhookId },
      details: {
        host: url.host,
        events: input.events,
        ...(row.excludeSelf && { exclude_self: true }),
      },
    }),
  ])
  if (inserted.length === 0) {
    throw new AppError(
      'webhook_limit',
      `a workspace may have at most ${MAX_WEBHOOKS} webhooks; delete one first`,
    )
  }
  announceAudit(svc, recorded)
  // The secret leaves the server only in this response.
  return { ...presentWebhook(row), secret }
}

/** Newest first; never the secrets. */
export async function listWebhooks(svc: Services, actor: Actor): Promise<Webhook[]> {
  const rows = await svc.db
    .select(FIELDS)
    .from(webhooks)
    .where(eq(webhooks.workspaceId, actor.workspaceId))
    .orderBy(desc(webhooks.createdAt), webhooks.webhookId)
  return rows.map(presentWebhook)
}

/** Deletes the webhook and its deliveries' log; an attempt already queued then finds nothing. */
export async function deleteWebhook(svc: Services, actor: Actor, webhookId: string) {
  const [deleted, recorded] = await svc.db.batch([
    svc.db
      .delete(webhooks)
      .where(and(eq(webhooks.webhookId, webhookId), eq(webhooks.workspaceId, actor.workspaceId)))
      .returning({ url: webhooks.url }),
    recordOf(svc, actor, { action: 'webhook.deleted', target: { type: 'webhook', id: webhookId } }),
  ])
  if (deleted.length === 0) throw webhookNotFound()
  announceAudit(svc, recorded)
  return deleted[0]
}

/**
 * Sends the webhook a signed `webhook.test` event at once (through the queue, as every event),
 * whatever it listens for and whoever asks: its delivery shows in the log like any other.
 */
export async function sendTestEvent(svc: Services, actor: Actor, webhookId: string) {
  const found = await svc.db
    .select({ webhookId: webhooks.webhookId })
    .from(webhooks)
    .where(and(eq(webhooks.webhookId, webhookId), eq(webhooks.workspaceId, actor.workspaceId)))
    .get()
  if (!found) throw webhookNotFound()
  const id = newEventId()
  svc.events?.({
    id,
    type: TEST_EVENT,
    workspaceId: actor.workspaceId,
    data: { webhook_id: webhookId },
    actor: eventActor(actor.by).actor,
    only: webhookId,
  })
  return { event_id: id, type: TEST_EVENT }
}

const DELIVERY_FIELDS = {
  eventId: webhookDeliveries.eventId,
  type: webhookDeliveries.type,
  attempts: webhookDeliveries.attempts,
  lastStatus: webhookDeliveries.lastStatus,
  lastError: webhookDeliveries.lastError,
  nextAttemptAt: webhookDeliveries.nextAttemptAt,
  deliveredAt: webhookDeliveries.deliveredAt,
  createdAt: webhookDeliveries.createdAt,
}

type DeliveryRow = Pick<typeof webhookDeliveries.$inferSelect, keyof typeof DELIVERY_FIELDS>

export function presentDelivery(row: DeliveryRow): Delivery {
  return {
    event_id: row.eventId,
    type: row.type as Delivery['type'],
    attempts: row.attempts,
    last_status: row.lastStatus,
    last_error: row.lastError,
    next_attempt_at: isoOrNull(row.nextAttemptAt),
    delivered_at: isoOrNull(row.deliveredAt),
    created_at: iso(row.createdAt),
  }
}

/** The webhook's last DELIVERIES_SHOWN deliveries, newest first. */
export async function listDeliveries(svc: Services, actor: Actor, webhookId: string) {
  const db = svc.db
  const mine = and(eq(webhooks.webhookId, webhookId), eq(webhooks.workspaceId, actor.workspaceId))
  const [found, rows] = await db.batch([
    db.select({ webhookId: webhooks.webhookId }).from(webhooks).where(mine),
    db
      .select(DELIVERY_FIELDS)
      .from(webhookDeliveries)
      .innerJoin(webhooks, eq(webhooks.webhookId, webhookDeliveries.webhookId))
      .where(mine)
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.eventId))
      .limit(DELIVERIES_SHOWN),
  ])
  if (found.length === 0) throw webhookNotFound()
  return rows.map(presentDelivery)
}

/** Each webhook with its last `shown` deliveries, for the Settings page: each list by the index. */
export async function webhooksWithDeliveries(svc: Services, actor: Actor, shown = 5) {
  const hooks = await listWebhooks(svc, actor)
  if (hooks.length === 0) return []
  const db = svc.db
  const lastOf = (webhookId: string) =>
    db
      .select(DELIVERY_FIELDS)
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.webhookId, webhookId))
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.eventId))
      .limit(shown)
  const [first, ...rest] = hooks.map((h) => lastOf(h.webhook_id))
  const lists = await db.batch([first, ...rest])
  return hooks.map((hook, i) => ({ ...hook, deliveries: lists[i].map(presentDelivery) }))
}
