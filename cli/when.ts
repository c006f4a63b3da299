import { ago as agoTime, clockTime, relative as relativeTime } from '../src/lib/time'

// Moments as a person at the terminal reads them: how long from now, and the time on their own
// clock. `--json` keeps the API's ISO timestamps. A server's string that is no time at all is
// shown as it came (made visible where it is printed), not as "in NaN days".

const isTime = (text: string) => !Number.isNaN(Date.parse(text))

/** "in 24 h", "in 7 days", "expired". */
export const relative = (isoTime: string) => (isTime(isoTime) ? relativeTime(isoTime) : isoTime)

/** "just now", "3 h ago", "12 days ago". */
export const ago = (isoTime: string) => (isTime(isoTime) ? agoTime(isoTime) : isoTime)

/**
 * "expires in 24 h, at 14:02 tomorrow", "expired at 09:15 yesterday", or "does not expire";
 * `how`: what it expires with (" with the canvas").
 */
export function expiry(expiresAt: string | null, how = ''): string {
  if (!expiresAt) return 'does not expire'
  if (!isTime(expiresAt)) return `expires${how} ${expiresAt}`
  const at = clockTime(expiresAt)
  if (Date.parse(expiresAt) <= Date.now()) return `expired${how} at ${at}`
  return `expires${how} ${relativeTime(expiresAt)}, at ${at}`
}
