import { periodDays, ViewsChart, type DayViews } from './views-chart'

// The canvas page's Readers panel (docs/readership.md): its views of the last 7 days as a chart,
// read from the index of canvases' days alone, and the way to who read it: by version, link and
// member, and the opens its links refused (the Readers page, which reads the rest).

const plural = (n: number, one: string) => `${n} ${n === 1 ? one : `${one}s`}`

export type ReadersPanelProps = {
  canvasId: string
  /** False when the service counts no reads (VIEW_ANALYTICS=off). */
  enabled: boolean
  /** The days of the last 7 it was read on. */
  week: DayViews[]
  now: number
}

export function ReadersPanel(props: ReadersPanelProps) {
  const total = props.week.reduce((sum, d) => sum + d.views, 0)
  return (
    <section aria-labelledby="readers">
      <h2 id="readers">Readers</h2>
      {!props.enabled ? (
        <p class="muted">This service counts no reads: VIEW_ANALYTICS is off.</p>
      ) : total === 0 ? (
        <p class="muted">Nobody has read it in the last 7 days (a read shows within a minute).</p>
      ) : (
        <>
          <p>{plural(total, 'view')} in the last 7 days.</p>
          <ViewsChart days={periodDays(props.week, 7, props.now, false)} compact />
        </>
      )}
      <p>
        <a href={`/c/${props.canvasId}/readers`}>Who read this canvas</a>: views by day, version and
        link, which members read which version, and the opens its links refused.
      </p>
    </section>
  )
}
