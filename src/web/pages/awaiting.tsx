import { Layout } from './layout'
import { LiveStatus } from './viewer'

/**
 * A link that shows the approved version, before any is: it says so, and its live socket reloads
 * the page the moment a version is approved (assets/live.ts), so its reader never waits on a
 * reload of their own and never sees the draft.
 */
export function AwaitingReviewPage(props: { live?: string }) {
  return (
    <Layout
      title="Awaiting review"
      main="narrow"
      og={{ title: 'Shared on Canvas', type: 'website' }}
    >
      <div class="panel" data-live={props.live} data-version="0" data-follows data-awaiting>
        <h1>Awaiting review</h1>
        <p>
          This link shows what its authors have approved, and nothing is yet. This page opens the
          approved version as soon as there is one.
        </p>
        <LiveStatus />
      </div>
    </Layout>
  )
}
