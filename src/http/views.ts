import type { Context } from 'hono'
import { countRead as count, type Read } from '../domain/views/count'
import { logError } from '../lib/log'
import { afterResponse, type AppEnv } from './context'
import { clientNetworkOf } from './limits'

/** Counts a person's read of a canvas after the answer has gone (docs/readership.md). */
export function countRead<E extends AppEnv>(c: Context<E>, read: Omit<Read, 'network' | 'agent'>) {
  // A HEAD (a link's preview, a checker) asks whether the page is there; nobody reads it.
  if (c.req.method === 'HEAD') return
  const work = count(c.var.svc, {
    ...read,
    network: clientNetworkOf(c),
    agent: c.req.header('User-Agent') ?? '',
  }).catch((err: unknown) =>
    logError({ event: 'view_count_failed', canvas_id: read.canvasId }, err),
  )
  afterResponse(c as unknown as Context<AppEnv>, work)
}
