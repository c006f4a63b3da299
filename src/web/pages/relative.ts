export function relative(isoTime: string): string {
  const ms = Date.parse(isoTime) - Date.now()
  const hours = Math.round(ms / 3600_000)
  if (ms <= 0) return 'expired'
  if (hours < 1) return `in ${Math.max(1, Math.round(ms / 60_000))} min`
  if (hours < 48) return `in ${hours} h`
  return `in ${Math.round(hours / 24)} days`
}

/** A past moment as people say it: "just now", "5 min ago", "3 h ago", "12 days ago", a date. */
export function ago(isoTime: string): string {
  const ms = Date.now() - Date.parse(isoTime)
  const minutes = Math.round(ms / 60_000)
  if (minutes < 1) return 'just now'
  if (minutes < 60) return `${minutes} min ago`
  const hours = Math.round(minutes / 60)
  if (hours < 48) return `${hours} h ago`
  const days = Math.round(hours / 24)
  return days < 60 ? `${days} days ago` : calendar(isoTime, false)
}

const MONTHS = 'Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec'.split(' ')

/**
 * A moment as a date people read the same way everywhere: "26 Nov 2026, 04:33 UTC" (the server
 * knows no reader's time zone, so it says which one it uses).
 */
export function calendar(isoTime: string, withTime = true): string {
  const d = new Date(isoTime)
  if (Number.isNaN(d.getTime())) return isoTime
  const date = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`
  if (!withTime) return date
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${date}, ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`
}
