import { and, eq, gt } from 'drizzle-orm'
import { hmacHex } from '../../lib/crypto'
import { revokedLinks } from '../../storage/schema'
import { secretFor, type Settings } from '../../lib/settings'
import { dayOf, LINK_PREFIX_LENGTH, type ReadOrRefusal } from '../../lib/views'
import type { Services } from '../services'
import { REVOKED_REMEMBERED_MS } from '../shares/shares'

// Counting a person's read (docs/readership.md): who read is a keyed hash of their network and
// user agent under a key of the day, derived from CSRF_SECRET and never stored, so that a reader
// is one reader within a day and cannot be followed from one day to the next. The count goes to
// the canvas's Durable Object; nothing is written to D1 on the read.

export type Read = {
  canvasId: string
  /** The client's network (http/limits.ts) and user agent: hashed here, kept nowhere. */
  network: string
  agent: string
  /** The share link it came through. */
  token?: string
} & ReadOrRefusal

// The key of the day, made once a day for each deployment's settings (an isolate has one): one
// HMAC a read fewer.
const dayKeys = new WeakMap<Settings, { day: number; key: Promise<string> }>()

function keyOfDay(svc: Services, day: number): Promise<string> {
  const made = dayKeys.get(svc.settings)
  if (made?.day === day) return made.key
  const key = hmacHex(secretFor('CSRF_SECRET', svc.settings.csrfSecret), `views:${day}`)
  dayKeys.set(svc.settings, { day, key })
  return key
}

/** Counts the read; resolves once it is handed to the canvas's object (run it after the answer). */
export async function countRead(svc: Services, read: Read) {
  if (!svc.views || !svc.settings.viewAnalytics) return
  const at = svc.now()
  const dayKey = await keyOfDay(svc, dayOf(at))
  const reader = (await hmacHex(dayKey, `${read.network}\n${read.agent}`)).slice(0, 16)
  const link = read.token && { link: read.token.slice(0, LINK_PREFIX_LENGTH) }
  svc.views(
    read.canvasId,
    read.refused
      ? { at, reader, refused: read.refused }
      : { at, reader, version: read.version, ...link, ...(read.member && { member: read.member }) },
  )
}

/**
 * Counts an open of a link that is not there: a refused open of its canvas when it is a link
 * revoked a short while ago (remembered until the sweep forgets it), nothing otherwise.
 */
export async function countMissingLink(
  svc: Services,
  open: { token: string; network: string; agent: string },
) {
  if (!svc.views || !svc.settings.viewAnalytics) return
  const [revoked] = await svc.db
    .select({ canvasId: revokedLinks.canvasId })
    .from(revokedLinks)
    .where(
      and(
        eq(revokedLinks.token, open.token),
        // Remembered until the sweep forgets it, counted for as long as it says.
        gt(revokedLinks.revokedAt, svc.now() - REVOKED_REMEMBERED_MS),
      ),
    )
  if (revoked) await countRead(svc, { ...open, canvasId: revoked.canvasId, refused: 'revoked' })
}
