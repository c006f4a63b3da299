import { and, eq, gt, isNull, or } from 'drizzle-orm'
import { one, type Bindable } from '../../storage/db'
import { canvases } from '../../storage/schema'
import type { Services } from '../services'
import type { Actor } from '../actor'

// "Unexpired": a canvas whose time has not run out (a deleted canvas is one expired at once), as
// distinct from live/, the viewers that follow a canvas in real time.

/** Whose canvases a statement may touch: the caller's workspace, or a share link's. */
type Owner = Pick<Actor, 'workspaceId'>

/** A canvas that has not expired at `now`. */
export const unexpired = (now: Bindable<number>) =>
  or(isNull(canvases.expiresAt), gt(canvases.expiresAt, now))

/** This canvas, if it is the owner's workspace's and has not expired at `now`. */
export const unexpiredCanvasOf = (owner: Owner, canvasId: string, now: number) =>
  and(eq(canvases.canvasId, canvasId), eq(canvases.workspaceId, owner.workspaceId), unexpired(now))

/** A row when the canvas has not expired and is the owner's: a batch's way to tell "no such canvas". */
export const selectUnexpiredCanvas = (svc: Services, owner: Owner, canvasId: string) =>
  svc.db
    .select(one)
    .from(canvases)
    .where(unexpiredCanvasOf(owner, canvasId, svc.now()))

/** The canvas's id when it has not expired and is the owner's: a subquery that makes a write conditional. */
export const unexpiredCanvasId = (svc: Services, owner: Owner, canvasId: string) =>
  svc.db
    .select({ canvasId: canvases.canvasId })
    .from(canvases)
    .where(unexpiredCanvasOf(owner, canvasId, svc.now()))
