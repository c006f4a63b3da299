import { logError } from '../lib/log'
import type { CommentWaiter, LiveAudience, LiveNotice, LiveNotifier } from '../lib/live-events'
import type { CanvasLive } from './canvas-live'

/**
 * The notifier the Worker's writes call: it reaches the canvas's object after the response, under
 * `defer` (waitUntil), and a failure is logged, never thrown: the write has happened, and a page
 * that missed the event catches up when its socket reconnects.
 */
export function liveNotifier(
  namespace: DurableObjectNamespace<CanvasLive> | undefined,
  defer: (work: Promise<unknown>) => void,
): LiveNotifier {
  return (canvasId: string, notice: LiveNotice, audience: LiveAudience = 'all') => {
    if (!namespace) return
    const stub = namespace.get(namespace.idFromName(canvasId))
    defer(
      stub.notify(notice, audience).catch((err: unknown) => {
        logError({ live_notify_failed: canvasId, event: notice.type }, err)
      }),
    )
  }
}

/** The waiter the comment routes and tools call: the canvas's object holds the wait. */
export function commentWaiter(
  namespace: DurableObjectNamespace<CanvasLive> | undefined,
): CommentWaiter {
  return async (canvasId, sinceMs, timeoutMs) => {
    if (!namespace) return false
    const stub = namespace.get(namespace.idFromName(canvasId))
    return stub.waitForComment(sinceMs, timeoutMs)
  }
}
