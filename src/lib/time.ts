// Moments as people say them, shared by the web pages and the CLI. `now` is a parameter so that a
// test can hold the clock still.

/** A future moment: "in 5 min", "in 24 h", "in 7 days"; "expired" once it is past. */
export function relative(isoTime: string, now = Date.now()): string {
  const ms = Date.parse(isoTime) - now
  const hours = Math.round(ms / 3600_000)
  if (ms <= 0) return 'expired'
  if (hours < 1) return `in ${Math.max(1, Math.round(ms / 60_000))} min`
  if (hours < 48) return `in ${hours} h`
  return `in ${Math.round(hours / 24)} days`
}

/** A past moment: "just now", "5 min ago", "3 h ago", "12 days ago", a date. */
export function ago(isoTime: string, now = Date.now()): string {
  const ms = now - Date.parse(isoTime)
  const minutes = Math.round(ms / 60_000)
  if (minutes < 1) return 'just now'
  if (minutes < 60) return `${minutes} min ago`
  const hours = Math.round(minutes / 60)
  if (hours < 48) return `${hours} h ago`
  const days = Math.round(hours / 24)
  return days < 60 ? `${days} days ago` : isoTime.slice(0, 10)
}

const MONTHS = 'Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec'.split(' ')

/**
 * A moment as a date people read the same way everywhere: "26 Nov 2026, 04:33 UTC". A web page
 * is drawn by a server that knows no reader's time zone, so it says which one it uses.
 */
export function calendar(isoTime: string, withTime = true): string {
  const d = new Date(isoTime)
  if (Number.isNaN(d.getTime())) return isoTime
  const date = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`
  if (!withTime) return date
  return `${date}, ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`
}

/**
 * A moment on the wall clock of the local time zone (the process's, `TZ`: on a person's machine,
 * theirs), with its day unless that is today: "14:02", "14:02 tomorrow", "09:15 yesterday",
 * "14:02 on 30 Nov", "14:02 on 30 Nov 2027". The web's local time is the browser's, not the
 * Worker's: this is for the CLI.
 */
export function clockTime(isoTime: string, now = Date.now()): string {
  const at = new Date(isoTime)
  const time = `${pad(at.getHours())}:${pad(at.getMinutes())}`
  const days = dayNumber(at) - dayNumber(new Date(now))
  if (days === 0) return time
  if (days === 1) return `${time} tomorrow`
  if (days === -1) return `${time} yesterday`
  const year = at.getFullYear() === new Date(now).getFullYear() ? '' : ` ${at.getFullYear()}`
  return `${time} on ${at.getDate()} ${MONTHS[at.getMonth()]}${year}`
}

const pad = (n: number) => String(n).padStart(2, '0')

/** Days since the epoch of the local calendar date (a day of 23 or 25 hours counts as one). */
const dayNumber = (date: Date) =>
  Math.round(Date.UTC(date.getFullYear(), date.getMonth(), date.getDate()) / 86_400_000)
