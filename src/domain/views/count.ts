import { hmacHex } from '../../lib/crypto'
import { secretFor } from '../../lib/settings'
import { dayOf, LINK_PREFIX_LENGTH } from '../../lib/views'
import type { Services } from '../services'

// Counting a person's read (docs/readership.md): who read is a keyed hash of their network and
// user agent under a key of the day, derived from CSRF_SECRET and never stored, so that a reader
// is one reader within a day and cannot be followed from one day to the next. The count goes to
// the canvas's Durable Object; nothing is written to D1 on the read.

export type Read = {
  canvasId: string
  version: number
  /** The client's network (http/limits.ts) and user agent: hashed here, kept nowhere. */
  network: string
  agent: string
  /** The share link it came through. */
  token?: string
  /** The member who read, by user id. */
  member?: string
}

/** Counts the read; resolves once it is handed to the canvas's object (run it after the answer). */
export async function countRead(svc: Services, read: Read) {
  if (!svc.views) return
  const at = svc.now()
  const secret = secretFor('CSRF_SECRET', svc.settings.csrfSecret)
  const dayKey = await hmacHex(secret, `views:${dayOf(at)}`)
  const reader = (await hmacHex(dayKey, `${read.network}\n${read.agent}`)).slice(0, 16)
  svc.views(read.canvasId, {
    at,
    version: read.version,
    reader,
    ...(read.token && { link: read.token.slice(0, LINK_PREFIX_LENGTH) }),
    ...(read.member && { member: read.member }),
  })
}
