import type { Context } from 'hono'
import { id } from './schemas'
import type { Bindings } from '../lib/settings'
import type { KeyAuth } from '../domain/keys'
import type { Services } from '../domain/services'
import type { SessionInfo } from '../domain/users'

export type AppEnv = {
  Bindings: Bindings
  Variables: {
    svc: Services
    auth: KeyAuth
    session: SessionInfo
  }
}

export type AppContext = Context<AppEnv>

export function requestOrigin(c: Context): string {
  return new URL(c.req.url).origin
}

/** Runs work after the response without letting its failure reach the client. */
export function afterResponse(c: Context, work: Promise<unknown>) {
  const logged = work.catch((err) =>
    console.error(JSON.stringify({ level: 'error', message: String(err) })),
  )
  try {
    c.executionCtx.waitUntil(logged)
  } catch {
    // No execution context (direct app.request in a unit test): the promise still runs.
  }
}

/** The canvas id in the path; one that cannot exist is answered like one that does not. */
export function canvasIdParam(c: Context): string {
  const value = c.req.param('id') ?? ''
  return id.safeParse(value).success ? value : ''
}
