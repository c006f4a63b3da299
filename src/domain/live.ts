import { gt, isNull, or } from 'drizzle-orm'
import { canvases } from '../storage/schema'

/** A canvas that has not expired at `now`. */
export const live = (now: number) => or(isNull(canvases.expiresAt), gt(canvases.expiresAt, now))
