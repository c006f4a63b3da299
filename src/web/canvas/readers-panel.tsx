import { plural } from '../../lib/format'
import type { CanvasGlance } from '../../domain/views/views'
import { REFUSALS, REFUSED_WORDS, type Refusal } from '../../lib/views'
import { periodDays, ViewsChart } from './views-chart'

// The canvas page's Readers panel (docs/readership.md): its views of the last 7 days as a chart,
// which teammates read its latest version, the opens its links refused, with a way to share
// again; and the way to the rest (by version, by link, each member: the Readers page).

export type ReadersPanelProps = {
  canvasId: string
  /** False when the service counts no reads (VIEW_ANALYTICS=off). */
  enabled: boolean
  /** What its readers did this week; none for a canvas nobody has read. */
  glance?: CanvasGlance
  latest: number
  /** May make share links: the refused opens offer to share again. */
  mayShare: boolean
  now: number
}

export function ReadersPanel(props: ReadersPanelProps) {
  const { glance } = props
  const total = glance?.week.reduce((sum, d) => sum + d.views, 0) ?? 0
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
          <ViewsChart days={periodDays(glance!.week, 7, props.now, false)} compact />
        </>
      )}
      {glance && glance.latestReaders.length > 0 && (
        <p>
          Read the latest version (v{props.latest}):{' '}
          {glance.latestReaders.map((name, i) => (
            <>
              {i > 0 && ', '}
              <bdi>{name}</bdi>
            </>
          ))}
          {glance.moreReaders ? ' and more.' : '.'}
        </p>
      )}
      {glance && <Refused {...props} glance={glance} />}
      <p>
        <a href={`/c/${props.canvasId}/readers`}>Who read this canvas</a>: views by day, version and
        link, which members read which version, and the opens its links refused.
      </p>
    </section>
  )
}

/** The week's refused opens by reason, and for readers a link no longer opens to, a new link. */
function Refused(props: ReadersPanelProps & { glance: CanvasGlance }) {
  const { denied } = props.glance
  const { reasons, ended } = refusedReasons(denied)
  if (reasons.length === 0) return null
  return (
    <p class="row">
      <span>
        Refused opens this week:{' '}
        {reasons.map((reason) => `${denied[reason]} ${REFUSED_WORDS[reason]}`).join(', ')}.
      </span>
      {ended && props.mayShare && <ShareAgain canvasId={props.canvasId} class="btn small" />}
    </p>
  )
}

/**
 * The reasons some open was refused for, and whether one was a link that no longer opens (its
 * readers need a new one; a wrong password does not).
 */
export function refusedReasons(denied: Record<Refusal, number>) {
  const reasons = REFUSALS.filter((reason) => denied[reason] > 0)
  return { reasons, ended: reasons.some((reason) => reason !== 'wrong_password') }
}

/** The way to a new link: the canvas's page with its new link form open. */
export function ShareAgain(props: { canvasId: string; class: string }) {
  return (
    <a class={props.class} href={`/c/${props.canvasId}?share=new#new-share`}>
      Share again
    </a>
  )
}
