import { plural } from '../src/lib/format'
import { periodDates, REFUSALS, REFUSED_WORDS } from '../src/lib/views'
import { Formatted, visible } from './output'
import type { Readership } from './types'
import { ago } from './when'

// Who read a canvas as a person reads it in a terminal (svc views): the period's views and readers,
// a bar a day, then by version, by link and by member, and the opens its links refused.

const BARS = '▁▂▃▄▅▆▇█'

/** A bar a day of the period, oldest first, its height the day's views against the busiest. */
export function sparkline(byDay: Readership['by_day'], days: number, now: number): string {
  const views = new Map(byDay.map((d) => [d.date, d.views]))
  const counts = periodDates(days, now).map((date) => views.get(date) ?? 0)
  const most = Math.max(...counts)
  if (most === 0) return BARS[0].repeat(days)
  return counts.map((n) => (n === 0 ? ' ' : BARS[Math.ceil((n / most) * BARS.length) - 1])).join('')
}

/** The lines printed, each a server's strings made visible. */
export function readershipLines(views: Readership, now: number): Formatted {
  const lines = readership(views, now).map(visible)
  return new Formatted(lines.join('\n'))
}

function readership(views: Readership, now: number): string[] {
  if (!views.enabled) {
    return [`${views.canvas_id}: this service counts no reads (VIEW_ANALYTICS is off)`]
  }
  const head =
    `${views.canvas_id}: ${plural(views.total, 'view')} by ${plural(views.unique, 'reader')}` +
    ` in the last ${plural(views.days, 'day')}`
  const lines = [head]
  if (views.total > 0) {
    lines.push(`  ${sparkline(views.by_day, views.days, now)}  (a bar a day, today last)`)
    const versions = views.by_version.map((v) => `v${v.version} ${v.views}`).join(' · ')
    lines.push(`  by version: ${versions}`)
  }
  for (const link of views.by_link) {
    lines.push(
      `  link ${link.token_prefix}…: ${plural(link.views, 'view')} by ${plural(link.unique, 'reader')}, last ${ago(link.last_viewed_at)}`,
    )
  }
  for (const member of views.members) {
    lines.push(`  ${member.name} read v${member.last_version} ${ago(member.last_viewed_at)}`)
  }
  const refused = refusedOpens(views)
  if (refused) lines.push(`  refused opens: ${refused}`)
  return lines
}

/** The refused opens of the canvas's links by reason, with their readers; '' when none. */
function refusedOpens(views: Readership): string {
  // A server from before refused opens were counted does not say them.
  if (!views.denied || !views.denied_unique) return ''
  const { denied, denied_unique: readers } = views
  return REFUSALS.filter((reason) => denied[reason] > 0)
    .map(
      (reason) =>
        `${denied[reason]} ${REFUSED_WORDS[reason]} (${plural(readers[reason], 'reader')})`,
    )
    .join(' · ')
}
