import { logError } from '../lib/log'
import { VIEWS_PER_CALL, type ViewEvent } from '../lib/views'

// An isolate's reads, gathered for a moment and handed to each canvas's object in one call
// (docs/readership.md): a call to the object for every read cost a share link's download a
// quarter of its throughput (BENCHMARKS.md). The first read of a batch holds the wait, after its
// answer (waitUntil), so the batch is sent though no other request comes; later reads join it.

/** Hands one canvas's reads to its object. */
export type SendViews = (canvasId: string, views: ViewEvent[]) => Promise<void>

/** Where a read is kept until its batch is sent: `defer` holds the batch's wait. */
export type GatherView = (
  canvasId: string,
  view: ViewEvent,
  defer: (work: Promise<unknown>) => void,
) => void

/** Gathers reads for `waitMs`, then sends each canvas's, at most VIEWS_PER_CALL a call. */
export function viewGathering(send: SendViews, waitMs: number): GatherView {
  let pending = new Map<string, ViewEvent[]>()
  let waiting = false
  const sendAll = async () => {
    const batch = pending
    pending = new Map()
    waiting = false
    const calls = [...batch].flatMap(([canvasId, views]) =>
      slices(views).map((part) =>
        send(canvasId, part).catch((err: unknown) =>
          logError({ event: 'view_count_failed', canvas_id: canvasId, views: part.length }, err),
        ),
      ),
    )
    await Promise.all(calls)
  }
  return (canvasId, view, defer) => {
    const views = pending.get(canvasId)
    if (views) views.push(view)
    else pending.set(canvasId, [view])
    if (waiting) return
    waiting = true
    defer(new Promise((resolve) => setTimeout(resolve, waitMs)).then(sendAll))
  }
}

function slices(views: ViewEvent[]): ViewEvent[][] {
  const parts = []
  for (let i = 0; i < views.length; i += VIEWS_PER_CALL)
    parts.push(views.slice(i, i + VIEWS_PER_CALL))
  return parts
}
