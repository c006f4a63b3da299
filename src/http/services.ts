import { createMiddleware } from 'hono/factory'
import { readSettings } from '../lib/settings'
import { liveNotifier } from '../live/notify'
import { database } from '../storage/db'
import { afterResponse, type AppEnv } from './context'

export const services = createMiddleware<AppEnv>(async (c, next) => {
  c.set('svc', {
    db: database(c.env.DB),
    bucket: c.env.BUCKET,
    settings: readSettings(c.env),
    now: Date.now,
    // Open viewers hear of a write after its response has gone.
    live: liveNotifier(c.env.LIVE, (work) => afterResponse(c, work)),
  })
  await next()
})
