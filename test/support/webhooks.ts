import { createExecutionContext, createMessageBatch, env, getQueueResult } from 'cloudflare:test'
import { expect, inject } from 'vitest'
import { deliverBatch } from '../../src/domain/webhooks/delivery'
import {
  eventMessage,
  type WebhookMessage,
  type WebhookQueue,
} from '../../src/domain/webhooks/events'
import { type Settings } from '../../src/lib/settings'
import { call, json, type Account } from './api'
import { servicesOf } from '../../src/domain/services'

// Webhooks in the tests: the receiver the global setup runs (test/node/support/receiver.ts), the
// queue consumer driven directly on the real D1 with a clock of the test's own, and the
// signature checked as a receiver would check it, by its own HMAC.

export const receiverUrl = () => inject('receiverUrl')

let hooks = 0

/** A fresh place at the receiver that answers `answers` in turn (`hang`: never). */
export function hook(answers = '200') {
  const name = `h${++hooks}-${crypto.randomUUID().slice(0, 8)}`
  return { name, url: `${receiverUrl()}/hook/${name}?answers=${answers}` }
}

export type Received = { headers: Record<string, string>; body: string; at: number }

export async function received(name: string): Promise<Received[]> {
  return (await fetch(`${receiverUrl()}/received/${name}`)).json()
}

/** Waits until `check` holds (the real queue runs on its own time), or fails saying what. */
export async function eventually<T>(
  what: string,
  read: () => Promise<T>,
  check: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (check(value)) return value
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

export async function createWebhook(
  key: string,
  body: { url: string; events?: string[]; exclude_self?: boolean },
  extraEnv: Record<string, string> = {},
) {
  const res = await call('/v1/webhooks', {
    method: 'POST',
    key,
    json: { events: ['canvas.version_created'], ...body },
    env: extraEnv,
  })
  if (res.status !== 201) throw new Error(`webhook: ${res.status} ${await res.text()}`)
  return json<{ webhook_id: string; secret: string; url: string; events: string[] }>(res)
}

/** A queue nobody consumes: where the consumer driven by a test schedules its retries. */
export const unconsumed = () => env.WEBHOOKS_UNCONSUMED as unknown as WebhookQueue

/** What the consumer runs on, with the test's clock and any settings changed. */
export function consumerServices(now: () => number, settings: Partial<Settings> = {}) {
  const svc = servicesOf(env)
  return { ...svc, settings: { ...svc.settings, ...settings }, now }
}

let messages = 0

/**
 * One batch of `bodies` through the consumer, each message handed over for the `attempts`th time
 * (more than 1: the queue redelivers it). Answers what the consumer did with each.
 */
export async function consume(
  services: ReturnType<typeof consumerServices>,
  bodies: WebhookMessage[],
  attempts = 1,
) {
  const batch = createMessageBatch<WebhookMessage>(
    'canvas-webhooks',
    bodies.map((body) => ({ id: `m${++messages}`, timestamp: Date.now(), attempts, body })),
  )
  await deliverBatch(services, unconsumed(), batch)
  return getQueueResult(batch, createExecutionContext())
}

/** A delivery's row, as the consumer left it. */
export async function deliveryRow(webhookId: string, eventId: string) {
  return env.DB.prepare('SELECT * FROM webhook_deliveries WHERE webhook_id = ? AND event_id = ?')
    .bind(webhookId, eventId)
    .first<{
      attempts: number
      claimed_until: number | null
      last_status: number | null
      last_error: string | null
      next_attempt_at: number | null
      delivered_at: number | null
      created_at: number
      body: string
    }>()
}

/** A receiver's check of `Canvas-Signature`, written from the recipe of docs/comments-and-webhooks.md. */
export async function signatureHolds(secret: string, header: string, body: string) {
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=', 2)))
  const key = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  )
  const mac = new Uint8Array(
    (parts.v1 ?? '').match(/../g)?.map((h: string) => parseInt(h, 16)) ?? [],
  )
  const signed = new TextEncoder().encode(`${parts.t}.${body}`)
  return crypto.subtle.verify('HMAC', key, mac, signed)
}

/** The actor of the events the tests make up: the service itself. */
export const SYSTEM = { kind: 'system', name: 'tests' } as const

/** A `canvas.deleted` event of the account's workspace, as a write would queue it at `now`. */
export function eventOf(account: Account, now: number) {
  const message = eventMessage(
    {
      type: 'canvas.deleted',
      workspaceId: account.workspaceId,
      data: { canvas_id: `c${now}` },
      actor: SYSTEM,
    },
    now,
  )
  if (message.kind !== 'event') throw new Error('not an event')
  return message
}

export const attemptOf = (webhookId: string, eventId: string, attempt: number): WebhookMessage => ({
  kind: 'attempt',
  webhook_id: webhookId,
  event_id: eventId,
  attempt,
})

/**
 * A webhook of the account at the receiver answering `answers`, and an event fanned out to it at
 * `start` by the consumer on the test's clock (the first attempt's message goes nowhere: the test
 * sends each attempt itself).
 */
export async function deliveringTo(account: Account, answers: string, start = Date.now()) {
  const place = hook(answers)
  const webhook = await createWebhook(account.key, { url: place.url, events: ['canvas.deleted'] })
  let now = start
  const services = consumerServices(() => now)
  const message = eventOf(account, start)
  expect((await consume(services, [message])).explicitAcks).toHaveLength(1)
  const row = await deliveryRow(webhook.webhook_id, message.event.id)
  expect(row).toMatchObject({ attempts: 0, created_at: start, delivered_at: null })
  return {
    place,
    webhook,
    eventId: message.event.id,
    services,
    setNow: (at: number) => (now = at),
    /** Attempt `n`, the queue handing its message over for the `handedOver`th time. */
    attempt: (n: number, handedOver = 1) =>
      consume(services, [attemptOf(webhook.webhook_id, message.event.id, n)], handedOver),
    row: () => deliveryRow(webhook.webhook_id, message.event.id),
  }
}
