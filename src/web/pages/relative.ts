export function relative(isoTime: string): string {
  const ms = Date.parse(isoTime) - Date.now()
  const hours = Math.round(ms / 3600_000)
  if (ms <= 0) return 'expired'
  if (hours < 1) return `in ${Math.max(1, Math.round(ms / 60_000))} min`
  if (hours < 48) return `in ${hours} h`
  return `in ${Math.round(hours / 24)} days`
}
