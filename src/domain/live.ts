import { and, eq, gt, isNull, or } from 'drizzle-orm'
import { one, type Bindable } from '../storage/db'
import { canvases } from '../storage/schema'
import type { Actor, Services } from './services'

/** Whose canvases a statement may touch: the caller's workspace, or a share link's. */
type Owner = Pick<Actor, 'workspaceId'>

/** A canvas that has not expired at `now`. */
export const live = (now: Bindable<number>) =>
  or(isNull(canvases.expiresAt), gt(canvases.expiresAt, now))

/** This canvas, if it is the owner's workspace's and has not expired at `now`. */
export const liveCanvasOf = (owner: Owner, canvasId: string, now: number) =>
  and(eq(canvases.canvasId, canvasId), eq(canvases.workspaceId, owner.workspaceId), live(now))

/** A row when the canvas is live and the owner's: a batch's way to tell "no such canvas". */
export const selectLiveCanvas = (svc: Services, owner: Owner, canvasId: string) =>
  svc.db
    .select(one)
    .from(canvases)
    .where(liveCanvasOf(owner, canvasId, svc.now()))

/** The canvas's id when it is live and the owner's: a subquery that makes a write conditional. */
export const liveCanvasId = (svc: Services, owner: Owner, canvasId: string) =>
  svc.db
    .select({ canvasId: canvases.canvasId })
    .from(canvases)
    .where(liveCanvasOf(owner, canvasId, svc.now()))
