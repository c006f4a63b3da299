import { buildApp } from './app'
import { readSettings, type Bindings } from './lib/settings'
import { sweep } from './domain/sweep'
import { database } from './storage/db'
import { meteredD1 } from './storage/metered-d1'

export { CanvasLive } from './live/canvas-live'

const app = buildApp()

export default {
  fetch: app.fetch,

  /**
   * The cron sweep; its clock is the trigger's scheduled time. One JSON summary line per run, with
   * what it cost in D1 (round trips, statements, rows read and written).
   */
  async scheduled(controller: ScheduledController, env: Bindings) {
    const { db, meter } = meteredD1(env.DB)
    const services = {
      db: database(db),
      bucket: env.BUCKET,
      settings: readSettings(env),
      now: Date.now,
    }
    const summary = await sweep(services, { now: controller.scheduledTime })
    const d1 = {
      round_trips: meter.roundTrips,
      statements: meter.statements,
      rows_read: meter.rowsRead,
      rows_written: meter.rowsWritten,
    }
    console.log(JSON.stringify({ ...summary, d1 }))
  },
} satisfies ExportedHandler<Bindings>
