import { buildApp } from './app'
import { readSettings, type Bindings } from './env'
import { sweep } from './domain/sweep'

const app = buildApp()

export default {
  fetch: app.fetch,

  /** The cron sweep; its clock is the trigger's scheduled time. One JSON summary line per run. */
  async scheduled(controller: ScheduledController, env: Bindings) {
    const services = { db: env.DB, bucket: env.BUCKET, settings: readSettings(env), now: Date.now }
    const summary = await sweep(services, { now: controller.scheduledTime })
    console.log(JSON.stringify(summary))
  },
} satisfies ExportedHandler<Bindings>
