import type { Context } from 'hono'
import { countMissingLink, countRead as count, type Read } from '../domain/views/count'
import { LinkRefused } from '../domain/shares/public'
import { AppError } from '../lib/errors'
import { logError } from '../lib/log'
import { afterResponse, type AppEnv } from './context'
import { clientNetworkOf } from './limits'

// A read as its route knows it (each kind of read apart): the network and agent are added here.
type Counted = Read extends infer R
  ? R extends unknown
    ? Omit<R, 'network' | 'agent'>
    : never
  : never

/** Counts a person's read of a canvas after the answer has gone (docs/readership.md). */
export function countRead<E extends AppEnv>(c: Context<E>, read: Counted) {
  counting(c, read.canvasId, (reader) => count(c.var.svc, { ...read, ...reader }))
}

/**
 * Opens a share link by `open`; when the open is refused for a reason readership counts (expired,
 * used up, a wrong password, or a link revoked a while ago), counts it against the link's canvas
 * after the answer, and throws the refusal on.
 */
export async function refusalsCounted<E extends AppEnv, T>(
  c: Context<E>,
  token: string,
  open: () => Promise<T>,
): Promise<T> {
  try {
    return await open()
  } catch (err) {
    if (err instanceof LinkRefused && err.canvasId) {
      countRead(c, { canvasId: err.canvasId, token, refused: err.reason })
    } else if (err instanceof AppError && err.code === 'share_not_found' && token) {
      // Which canvas a link no longer there was revoked from is looked up after the answer too.
      counting(c, null, (reader) => countMissingLink(c.var.svc, { token, ...reader }))
    }
    throw err
  }
}

/** Runs a count after the answer, with the reader's network and agent; a HEAD is no read. */
function counting<E extends AppEnv>(
  c: Context<E>,
  canvasId: string | null,
  work: (reader: { network: string; agent: string }) => Promise<void>,
) {
  // A HEAD (a link's preview, a checker) asks whether the page is there; nobody reads it.
  if (c.req.method === 'HEAD') return
  const done = work({
    network: clientNetworkOf(c),
    agent: c.req.header('User-Agent') ?? '',
  }).catch((err: unknown) => logError({ event: 'view_count_failed', canvas_id: canvasId }, err))
  afterResponse(c as unknown as Context<AppEnv>, done)
}
