import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { CLAIM_MS, RETRY_WINDOW_MS, retryDelayMs } from '../src/domain/webhooks/delivery'
import { call, json, newAccount, type Account } from './support/api'
import {
  attemptOf,
  consume,
  consumerServices,
  createWebhook,
  deliveringTo,
  deliveryRow,
  eventOf,
  hook,
  received,
  receiverUrl,
  SYSTEM,
} from './support/webhooks'

// The queue's consumer, driven message by message on the real D1 with the test's own clock, against
// a real receiver on 127.0.0.1 (docs/comments-and-webhooks.md): signed bodies, retries with growing
// delays for 24 h, one id across attempts, nothing sent twice, nothing after a 2xx.

let account: Account
beforeAll(async () => {
  account = await newAccount()
})

const event = (now: number) => eventOf(account, now)
const delivering = (answers: string, start = Date.now()) => deliveringTo(account, answers, start)

describe('a delivery', () => {
  it('is a signed POST of {id, type, created_at, data} that a receiver can verify', async () => {
    const d = await delivering('200')
    await d.attempt(1)
    const [got] = await received(d.place.name)
    expect(got.headers['content-type']).toBe('application/json')
    const body = JSON.parse(got.body)
    expect(body).toEqual({
      id: d.eventId,
      type: 'canvas.deleted',
      created_at: expect.stringMatching(/Z$/),
      data: { canvas_id: expect.any(String), actor: SYSTEM },
    })
    expect(d.eventId).toMatch(/^evt_[A-Za-z0-9]{20}$/)
    // The recipe of docs/comments-and-webhooks.md, by a receiver's own HMAC of "<t>.<raw body>"
    // under the secret.
    const header = got.headers['canvas-signature']
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)
    const t = Number(/t=(\d+)/.exec(header)![1])
    expect(Math.abs(t - Date.now() / 1000)).toBeLessThan(60)
    const expected = await hmacHex(d.webhook.secret, `${t}.${got.body}`)
    expect(header).toBe(`t=${t},v1=${expected}`)
    // Another secret, or a body changed by one byte, does not verify.
    expect(await hmacHex(`${d.webhook.secret}x`, `${t}.${got.body}`)).not.toBe(expected)
    expect(await hmacHex(d.webhook.secret, `${t}.${got.body} `)).not.toBe(expected)
    expect(await d.row()).toMatchObject({
      attempts: 1,
      last_status: 200,
      last_error: null,
      next_attempt_at: null,
      delivered_at: expect.any(Number),
      claimed_until: null,
    })
  })

  it('500, 500, then 200: three attempts with one id, then never again', async () => {
    const start = Date.now()
    const d = await delivering('500,500,200', start)
    await d.attempt(1)
    const first = await d.row()
    expect(first).toMatchObject({ attempts: 1, last_status: 500, delivered_at: null })
    // The first retry is due within 60 s.
    expect(first!.next_attempt_at! - start).toBeLessThanOrEqual(60_000)
    d.setNow(first!.next_attempt_at!)
    await d.attempt(2)
    const second = await d.row()
    expect(second).toMatchObject({ attempts: 2, last_status: 500 })
    expect(second!.next_attempt_at! - first!.next_attempt_at!).toBeGreaterThan(
      first!.next_attempt_at! - start,
    )
    d.setNow(second!.next_attempt_at!)
    await d.attempt(3)
    expect(await d.row()).toMatchObject({
      attempts: 3,
      last_status: 200,
      next_attempt_at: null,
      delivered_at: second!.next_attempt_at,
    })
    // The queue hands over attempt 3 again, a stray attempt 4, and the event itself: no request.
    const again = await d.attempt(3, 2)
    expect(again.explicitAcks).toHaveLength(1)
    await d.attempt(4, 2)
    await consume(
      d.services,
      [{ ...event(start), event: { ...event(start).event, id: d.eventId } }],
      2,
    )
    const got = await received(d.place.name)
    expect(got).toHaveLength(3)
    expect(new Set(got.map((r) => JSON.parse(r.body).id))).toEqual(new Set([d.eventId]))
    expect(new Set(got.map((r) => r.body)).size).toBe(1)
    // The log, as the API shows it.
    const log = await json(
      await call(`/v1/webhooks/${d.webhook.webhook_id}/deliveries`, { key: account.key }),
    )
    expect(log.deliveries).toEqual([
      {
        event_id: d.eventId,
        type: 'canvas.deleted',
        attempts: 3,
        last_status: 200,
        last_error: null,
        next_attempt_at: null,
        delivered_at: new Date(second!.next_attempt_at!).toISOString(),
        created_at: new Date(start).toISOString(),
      },
    ])
  })

  it('a receiver that never answers is given 10 s, then retried', async () => {
    const d = await delivering('hang')
    const began = Date.now()
    await d.attempt(1)
    expect(Date.now() - began).toBeGreaterThanOrEqual(9_500)
    expect(await d.row()).toMatchObject({
      attempts: 1,
      last_status: null,
      last_error: 'no answer within 10 s',
      delivered_at: null,
      next_attempt_at: expect.any(Number),
    })
  })

  it('is retried with growing delays for at least 24 h, then given up', async () => {
    const start = Date.now()
    const d = await delivering('503', start)
    const attemptsAt: number[] = []
    let now = start
    for (let n = 1; ; n++) {
      d.setNow(now)
      attemptsAt.push(now)
      await d.attempt(n)
      const row = await d.row()
      expect(row!.attempts).toBe(n)
      if (row!.next_attempt_at === null) break
      now = row!.next_attempt_at
      expect(n).toBeLessThan(20)
    }
    const gaps = attemptsAt.slice(1).map((at, i) => at - attemptsAt[i])
    expect(gaps[0]).toBeLessThanOrEqual(60_000)
    for (let i = 1; i < gaps.length; i++) expect(gaps[i]).toBeGreaterThanOrEqual(gaps[i - 1])
    expect(gaps[1]).toBeGreaterThan(gaps[0])
    // The last attempt is at least 24 h after the event, and the one before it within them.
    expect(attemptsAt.at(-1)! - start).toBeGreaterThanOrEqual(RETRY_WINDOW_MS)
    expect(attemptsAt.at(-2)! - start).toBeLessThan(RETRY_WINDOW_MS)
    expect(gaps).toEqual(gaps.map((_, i) => retryDelayMs(i + 1)))
    expect(await received(d.place.name)).toHaveLength(attemptsAt.length)
    const row = await d.row()
    expect(row).toMatchObject({ last_status: 503, delivered_at: null, next_attempt_at: null })
    // Given up: a late message for the next attempt sends nothing.
    await d.attempt(attemptsAt.length + 1, 2)
    expect(await received(d.place.name)).toHaveLength(attemptsAt.length)
  })

  it('is not sent twice when the queue hands the same attempt over twice', async () => {
    const d = await delivering('200')
    const [a, b] = await Promise.all([d.attempt(1), d.attempt(1, 2)])
    // One sent it; the other found it under way, or done.
    expect(a.explicitAcks.length + b.explicitAcks.length + b.retryMessages.length).toBe(2)
    expect(await received(d.place.name)).toHaveLength(1)
    expect(await d.attempt(1, 3)).toMatchObject({ explicitAcks: [expect.any(String)] })
    expect(await received(d.place.name)).toHaveLength(1)
  })

  it('an attempt whose run died is taken over once its claim lapses', async () => {
    const start = Date.now()
    const d = await delivering('200', start)
    // A run claimed attempt 1 and died before sending it.
    await env.DB.prepare(
      'UPDATE webhook_deliveries SET attempts = 1, claimed_until = ? WHERE event_id = ?',
    )
      .bind(start + CLAIM_MS, d.eventId)
      .run()
    const early = await d.attempt(1, 2)
    // Handed back to the queue for later (its delay is the claim's rest), not acknowledged.
    expect(early.retryMessages).toMatchObject([{ msgId: expect.any(String) }])
    expect(early.explicitAcks).toEqual([])
    expect(await received(d.place.name)).toHaveLength(0)
    d.setNow(start + CLAIM_MS + 1)
    await d.attempt(1, 3)
    expect(await received(d.place.name)).toHaveLength(1)
    expect(await d.row()).toMatchObject({ attempts: 1, last_status: 200 })
  })

  it('is refused, not sent, once its URL is not allowed', async () => {
    const d = await delivering('200')
    const strict = consumerServices(Date.now, { webhookAllowLocal: false })
    await consume(strict, [attemptOf(d.webhook.webhook_id, d.eventId, 1)])
    expect(await received(d.place.name)).toHaveLength(0)
    expect(await d.row()).toMatchObject({
      attempts: 1,
      last_status: null,
      last_error: 'refused: the URL must use https',
      next_attempt_at: null,
      delivered_at: null,
    })
  })

  it('is refused when its name now resolves to a private address, and retried', async () => {
    const webhook = await createWebhook(
      account.key,
      { url: 'https://public.example.com/hook', events: ['canvas.deleted'] },
      { WEBHOOK_ALLOW_LOCAL: '', WEBHOOK_DNS_URL: `${receiverUrl()}/dns-query` },
    )
    const rebound = consumerServices(Date.now, {
      webhookAllowLocal: false,
      webhookDnsUrl: `${receiverUrl()}/dns-rebound`,
    })
    const message = event(Date.now())
    await consume(rebound, [message])
    await consume(rebound, [attemptOf(webhook.webhook_id, message.event.id, 1)])
    expect(await deliveryRow(webhook.webhook_id, message.event.id)).toMatchObject({
      attempts: 1,
      last_status: null,
      last_error:
        'refused: the URL must not resolve to a private, loopback or reserved address (public.example.com is 10.9.8.7)',
      next_attempt_at: expect.any(Number),
    })
  })

  it('goes only to webhooks of the event’s workspace that listen for its type', async () => {
    const other = await newAccount()
    const theirs = await createWebhook(other.key, { url: hook().url, events: ['canvas.deleted'] })
    const deaf = await createWebhook(account.key, {
      url: hook().url,
      events: ['share.exhausted'],
    })
    const listening = await createWebhook(account.key, {
      url: hook().url,
      events: ['share.exhausted', 'canvas.deleted'],
    })
    const message = event(Date.now())
    await consume(consumerServices(Date.now), [message])
    expect(await deliveryRow(theirs.webhook_id, message.event.id)).toBeNull()
    expect(await deliveryRow(deaf.webhook_id, message.event.id)).toBeNull()
    expect(await deliveryRow(listening.webhook_id, message.event.id)).not.toBeNull()
  })
})

async function hmacHex(secret: string, message: string) {
  const key = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  )
  const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(message))
  return [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, '0')).join('')
}
