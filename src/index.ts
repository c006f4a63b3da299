import type { Hono } from 'hono'
import { getPath } from 'hono/utils/url'
import type { AppEnv } from './http/context'
import { hotApp } from './hot'
import type { Bindings } from './lib/settings'
import type { WebhookMessage, WebhookQueue } from './domain/webhooks/events'
import { servicesOf, type Services } from './domain/services'
import { meteredD1 } from './storage/metered-d1'
import { errorText, logError, logInfo } from './lib/log'
import { errorBody } from './lib/errors'
import { newId } from './lib/crypto'
import { fromThisMachine } from './lib/addresses'

export { CanvasLive } from './live/canvas-live'
export { PersonLive } from './live/person-live'

// The start evaluates the hot routes' app alone (src/hot.ts); the whole app, every route, is
// loaded by the first request no hot route serves, once per isolate, and answers every such one.
let whole: Promise<Hono<AppEnv>> | undefined
const wholeApp = () =>
  (whole ??= import('./app').then(
    ({ buildApp }) => buildApp(),
    (err: unknown) => {
      whole = undefined
      throw err
    },
  ))
const hot = hotApp((c) => byWholeApp(c.req.raw, c.env, c.executionCtx))

/**
 * Under `wrangler dev`, a request body the answer did not read is read to its end before the
 * answer goes: the local runtime otherwise closes the connection while the client still sends (an
 * early 401 to an upload is "fetch failed" to it). wrangler does this for a bundle it builds, and
 * adds nothing to modules uploaded as built; Cloudflare's edge needs none of it.
 */
async function drain(body: ReadableStream) {
  try {
    const reader = body.getReader()
    while (!(await reader.read()).done);
  } catch (err) {
    logError({ event: 'request_body_drain_failed' }, err)
  }
}

/** The runtime's context of a request, as Hono hands it on. */
type AppContext = Parameters<Hono<AppEnv>['fetch']>[2]

/** The whole app's answer; if it cannot be loaded, the error model's 500, logged. */
async function byWholeApp(request: Request, env: Bindings, ctx: AppContext) {
  let app: Hono<AppEnv>
  try {
    app = await wholeApp()
  } catch (err) {
    const id = newId()
    logError({ event: 'app_load_failed', request_id: id }, err)
    const body = errorBody('internal_error', 'internal error', id)
    return Response.json(body, { status: 500, headers: { 'X-Request-Id': id } })
  }
  return app.fetch(request, env, ctx)
}

// The sweep and the webhooks' deliveries are loaded by the cron and queue handlers that run them:
// a request's isolate never evaluates them.

export default {
  async fetch(request: Request, env: Bindings, ctx: ExecutionContext) {
    try {
      if (hot.serves(request.method, getPath(request)))
        return await hot.app.fetch(request, env, ctx)
      return await byWholeApp(request, env, ctx)
    } finally {
      if (request.body !== null && !request.bodyUsed && fromThisMachine(request)) {
        await drain(request.body)
      }
    }
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
