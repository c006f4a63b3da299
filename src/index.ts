import type { Hono } from 'hono'
import { getPath } from 'hono/utils/url'
import type { AppEnv } from './http/context'
import { hotApp, isHot } from './hot'
import type { Bindings } from './lib/settings'
import type { WebhookMessage, WebhookQueue } from './domain/webhooks/events'
import { servicesOf, type Services } from './domain/services'
import { meteredD1 } from './storage/metered-d1'
import { errorText, logError, logInfo } from './lib/log'

export { CanvasLive } from './live/canvas-live'
export { PersonLive } from './live/person-live'

// The start evaluates the hot routes' app alone (src/hot.ts); the whole app, every route, is
// loaded by the first request for another path, once per isolate, and answers every such request.
let whole: Promise<Hono<AppEnv>> | undefined
const wholeApp = () =>
  (whole ??= import('./app').then(
    ({ buildApp }) => buildApp(),
    (err: unknown) => {
      whole = undefined
      throw err
    },
  ))
const hot = hotApp(async (c) => (await wholeApp()).fetch(c.req.raw, c.env, c.executionCtx))

// The sweep and the webhooks' deliveries are loaded by the cron and queue handlers that run them:
// a request's isolate never evaluates them.

export default {
  fetch(request: Request, env: Bindings, ctx: ExecutionContext) {
    if (isHot(getPath(request))) return hot.fetch(request, env, ctx)
    return wholeApp().then((app) => app.fetch(request, env, ctx))
  },

  /**
   * The cron sweep, and webhook deliveries whose next step was lost queued again; their clock is
   * the trigger's scheduled time. One JSON summary line per run, with what it cost in D1 (round
   * trips, statements, rows read and written).
   */
  async scheduled(controller: ScheduledController, env: Bindings) {
    const { db, meter } = meteredD1(env.DB)
    const services = servicesOf(env, { db })
    const rescued = await rescue(services, env, controller.scheduledTime)
    const { sweep } = await import('./domain/sweep')
    let summary
    try {
      summary = await sweep(services, { now: controller.scheduledTime })
    } catch (err) {
      // The runtime would log the error as thrown: told through the sink, then failed plainly.
      logError({ event: 'sweep_failed' }, err)
      throw new Error(`sweep failed: ${errorText(err)}`)
    }
    const d1 = {
      round_trips: meter.roundTrips,
      statements: meter.statements,
      rows_read: meter.rowsRead,
      rows_written: meter.rowsWritten,
    }
    logInfo({ ...summary, webhooks_rescued: rescued, d1 })
  },

  /** The webhooks queue: events to send, and the retries this handler scheduled itself. */
  async queue(batch: MessageBatch<WebhookMessage>, env: Bindings) {
    const { deliverBatch } = await import('./domain/webhooks/delivery')
    await deliverBatch(servicesOf(env), env.WEBHOOKS as WebhookQueue, batch)
  },
} satisfies ExportedHandler<Bindings, WebhookMessage>

/** Webhook deliveries whose next step was lost, queued again; a failure is logged, not thrown. */
async function rescue(services: Services, env: Bindings, now: number): Promise<number | null> {
  try {
    const { rescueDeliveries } = await import('./domain/webhooks/rescue')
    return await rescueDeliveries(services, env.WEBHOOKS as WebhookQueue, now)
  } catch (err) {
    logError({ event: 'webhook_rescue_failed' }, err)
    return null
  }
}
