// Readership (docs/readership.md): what a counted read tells its canvas's Durable Object, which
// adds the counts up and writes them to D1 in batches, never on the request that is counted. An
// isolate gathers its reads first and hands each canvas's to its object in one call.

/** Why an open of a share link was refused: counted per canvas as `denied`. */
export const REFUSALS = ['expired', 'revoked', 'wrong_password', 'max_views'] as const
export type Refusal = (typeof REFUSALS)[number]

/** A refused open's reason in words, after a count: "3 on an expired link". */
export const REFUSED_WORDS: Record<Refusal, string> = {
  expired: 'on an expired link',
  revoked: 'on a revoked link',
  max_views: 'on a used-up link',
  wrong_password: 'with a wrong password',
}

/** What a person did: read a version (a member, by their user id), or open a link refused. */
export type ReadOrRefusal =
  | {
      /** The version read. */
      version: number
      /** A member's own read: their user id. */
      member?: string
      refused?: undefined
    }
  | { refused: Refusal; version?: undefined; member?: undefined }

/** A person's read of a canvas (a page or a download), or their open of a link that was refused. */
export type ViewEvent = {
  /** When, in milliseconds: its UTC day is the day it counts on. */
  at: number
  /**
   * Who, as a keyed hash of their network and user agent under a key of the day: unique within a
   * day, unlinkable across days; no address or user agent leaves the request.
   */
  reader: string
  /** Through which share link, by the first characters of its token. */
  link?: string
} & ReadOrRefusal

/** Counts a person's read of a canvas, off the request's path. */
export type ViewCounter = (canvasId: string, view: ViewEvent) => void

/** How many reads of one canvas one call to its object carries at most. */
export const VIEWS_PER_CALL = 500

/** The longest period the counts are read over, in days (today among them). */
export const MAX_VIEW_DAYS = 90

/** How many characters of a link's token name it in the counts (never the whole secret). */
export const LINK_PREFIX_LENGTH = 6

/**
 * A canvas's counts are written to D1 at most once in this while, and a read its object holds is
 * written within it.
 */
export const VIEW_WRITE_INTERVAL_MS = 60_000

export const DAY_MS = 86_400_000

/** The UTC day of a moment, as days since 1970-01-01. */
export const dayOf = (ms: number) => Math.floor(ms / DAY_MS)

/** A day number as a date, `2026-12-06`. */
export const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10)

/** The first day of a period of `days` days ending today (at `now`). */
export const firstDayOf = (days: number, now: number) => dayOf(now) - days + 1

/** The dates of a period of `days` days ending today (at `now`), oldest first. */
export const periodDates = (days: number, now: number) =>
  Array.from({ length: days }, (_, i) => dateOf(firstDayOf(days, now) + i))
