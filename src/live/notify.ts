import { logError } from '../lib/log'
import type {
  AccessWatch,
  CommentWaiter,
  LiveAudience,
  LiveNotice,
  LiveNotifier,
} from '../lib/live-events'
import type { ViewCounter } from '../lib/views'
import { viewGathering, type GatherView } from './view-gathering'
import type { CanvasLive } from './canvas-live'
import type { PersonLive } from './person-live'

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
  return async (canvasId, sinceMs, timeoutMs, tags) => {
    if (!namespace) return 'timeout'
    const stub = namespace.get(namespace.idFromName(canvasId))
    return stub.waitForComment(sinceMs, timeoutMs, tags)
  }
}

/**
 * Where a person's credentials listen, and their end (live/person-live.ts): each person's object
 * is asked, and an end is awaited, so the request that ended a credential answers after its
 * sockets and waits are gone.
 */
export function accessWatch(
  namespace: DurableObjectNamespace<PersonLive> | undefined,
): AccessWatch {
  const stub = (userId: string) => namespace!.get(namespace!.idFromName(userId))
  return {
    watch: async (userId, watch) => {
      if (namespace) await stub(userId).watch(watch)
    },
    end: async (userId, end) => {
      if (namespace) await stub(userId).end(end)
    },
  }
}

/** One gathering of reads an isolate, for each namespace of canvas objects (one, but for tests). */
const gatherings = new WeakMap<object, GatherView>()

/**
 * The counter the Worker's reads call (docs/readership.md): the isolate gathers reads for
 * `waitMs` and hands each canvas's to its object in one call, under `defer` (after the answer); a
 * failure is logged, never thrown, and costs its counts.
 */
export function viewCounter(
  namespace: DurableObjectNamespace<CanvasLive> | undefined,
  defer: (work: Promise<unknown>) => void,
  waitMs: number,
): ViewCounter {
  return (canvasId, view) => {
    if (!namespace) return
    let gather = gatherings.get(namespace)
    if (!gather) {
      gather = viewGathering(
        (id, views) => namespace.get(namespace.idFromName(id)).countViews(id, views),
        waitMs,
      )
      gatherings.set(namespace, gather)
    }
    gather(canvasId, view, defer)
  }
}
