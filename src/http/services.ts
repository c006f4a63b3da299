import { createMiddleware } from 'hono/factory'
import { readSettings } from '../lib/settings'
import { database } from '../storage/db'
import type { AppEnv } from './context'

export const services = createMiddleware<AppEnv>(async (c, next) => {
  c.set('svc', {
    db: database(c.env.DB),
    bucket: c.env.BUCKET,
    settings: readSettings(c.env),
    now: Date.now,
  })
  await next()
})
