import { and, eq, gt, isNull, or } from 'drizzle-orm'
import type { Bindable } from '../storage/db'
import { canvases } from '../storage/schema'
import type { Actor } from './services'

/** A canvas that has not expired at `now`. */
export const live = (now: Bindable<number>) =>
  or(isNull(canvases.expiresAt), gt(canvases.expiresAt, now))

/** This canvas, if it is the actor's workspace's and has not expired at `now`. */
export const liveCanvasOf = (actor: Actor, canvasId: string, now: number) =>
  and(eq(canvases.canvasId, canvasId), eq(canvases.workspaceId, actor.workspaceId), live(now))
