import { plural } from '../../lib/format'
import { periodDates } from '../../lib/views'

// Views per day as bars, drawn on the server (no chart library, no script): on the Readers page
// (docs/readership.md) and, for its last 7 days, on the canvas's page.

/** A day's reads; `unique` when the readers are known. */
export type DayViews = { date: string; views: number; unique?: number }

/**
 * Each day of a period of `days` ending today, oldest first, with its counts (none: zero), and its
 * readers when the days are told with theirs.
 */
export function periodDays(
  byDay: DayViews[],
  days: number,
  now: number,
  withReaders: boolean,
): DayViews[] {
  const byDate = new Map(byDay.map((d) => [d.date, d]))
  const none = withReaders ? { views: 0, unique: 0 } : { views: 0 }
  return periodDates(days, now).map((date) => byDate.get(date) ?? { date, ...none })
}

/** A bar a day, today's last; each says its date and counts, and the figure says the whole. */
export function ViewsChart(props: { days: DayViews[]; compact?: boolean }) {
  const { days } = props
  const most = Math.max(1, ...days.map((d) => d.views))
  const busiest = days.reduce((a, b) => (b.views > a.views ? b : a))
  const total = days.reduce((sum, d) => sum + d.views, 0)
  const label =
    `Views per day over the last ${days.length} days, ${days[0].date} to ${days.at(-1)!.date}: ` +
    `${total} in all, at most ${busiest.views} on ${busiest.date}.`
  return (
    <figure class={props.compact ? 'views-chart compact' : 'views-chart'}>
      <svg
        viewBox={`0 0 ${days.length * 10} 100`}
        preserveAspectRatio="none"
        role="img"
        aria-label={label}
      >
        {days.map((d, i) => {
          const height = d.views === 0 ? 2 : Math.max(4, (d.views / most) * 98)
          const readers = d.unique === undefined ? '' : `, ${plural(d.unique, 'reader')}`
          return (
            <rect
              class={d.views === 0 ? 'none' : undefined}
              x={i * 10 + 1}
              y={100 - height}
              width={8}
              height={height}
            >
              <title>{`${d.date}: ${plural(d.views, 'view')}${readers}`}</title>
            </rect>
          )
        })}
      </svg>
      <figcaption class="muted">
        <span>{days[0].date}</span>
        <span>today</span>
      </figcaption>
    </figure>
  )
}
