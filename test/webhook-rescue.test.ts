import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import type { WebhookQueue } from '../src/domain/webhooks/events'
import { RESCUE_AFTER_MS, rescueDeliveries } from '../src/domain/webhooks/rescue'
import { newAccount, type Account } from './support/api'
import { consumerServices, deliveringTo, eventually, received } from './support/webhooks'

// The cron's backstop: a delivery whose next step's queue message was lost (the queue gave up on
// it, or sending it failed) is sent that step again, and the real queue's consumer delivers it.

// A workspace each: an event goes to every webhook of its workspace that listens.
let accounts: Account[]
beforeAll(async () => {
  accounts = await Promise.all([newAccount(), newAccount(), newAccount()])
})

describe('the cron', () => {
  it('sends again the next step of a delivery whose message was lost, through the real queue', async () => {
    const start = Date.now()
    // The first attempt's message never came; an attempt's run died holding its claim; a retry's
    // message never came.
    const neverSent = await deliveringTo(accounts[0], '200', start)
    const died = await deliveringTo(accounts[1], '200', start)
    await env.DB.prepare(
      'UPDATE webhook_deliveries SET attempts = 1, claimed_until = ?, next_attempt_at = ? WHERE event_id = ?',
    )
      // Lapsed already by the real clock, which the real queue's consumer runs on.
      .bind(start - 1, start - 1, died.eventId)
      .run()
    const retry = await deliveringTo(accounts[2], '500,200', start)
    await retry.attempt(1)
    const failed = await retry.row()
    expect(failed).toMatchObject({ attempts: 1, last_status: 500 })
    const queue = env.WEBHOOKS as unknown as WebhookQueue
    const services = consumerServices(Date.now)
    // Not overdue yet: nothing is sent.
    expect(await rescueDeliveries(services, queue, start + 60_000)).toBe(0)
    const later = failed!.next_attempt_at! + RESCUE_AFTER_MS + 1
    expect(await rescueDeliveries(services, queue, later)).toBe(3)
    for (const d of [neverSent, died, retry]) {
      const row = await eventually(
        'delivered',
        () => d.row(),
        (r) => r?.delivered_at != null,
      )
      expect(row!.last_status).toBe(200)
    }
    expect(await received(neverSent.place.name)).toHaveLength(1)
    expect(await received(died.place.name)).toHaveLength(1)
    expect(await received(retry.place.name)).toHaveLength(2)
    expect((await neverSent.row())!.attempts).toBe(1)
    expect((await died.row())!.attempts).toBe(1)
    expect((await retry.row())!.attempts).toBe(2)
    // Delivered, none is overdue any more: a later run sends nothing.
    expect(await rescueDeliveries(services, queue, later + 24 * 3600_000)).toBe(0)
  })
})
