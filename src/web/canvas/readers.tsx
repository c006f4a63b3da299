import { plural } from '../../lib/format'
import { Hono } from 'hono'
import * as z from 'zod/mini'
import { page } from '../../http/actor/steps'
import { MEMBER, may } from '../../http/actor/need'
import { CHANGING } from '../needs'
import { params, query } from '../../http/validate'
import type { AppEnv } from '../../http/context'
import { readCanvasViews } from '../../domain/views/views'
import { canvasInPath } from '../../schema/requests'
import type { Readership } from '../../schema/responses'
import { ago, calendar } from '../../lib/time'
import type { Refusal } from '../../lib/views'
import { refusedReasons, ShareAgain } from './readers-panel'
import { periodDays, ViewsChart } from './views-chart'
import { Layout, type User } from '../pages/layout'
import { ListTable } from '../pages/list-table'
import { csrfToken, viewerOf } from '../session'

// Who read a canvas, for its workspace's members (docs/readership.md): views per day as a chart
// drawn here, by version, by share link, and which member read which version last. A page of its
// own, linked from the canvas's page, so that the canvas's page reads none of it.

export const readersPage = new Hono<AppEnv>()

/** The periods a person may choose, in days. */
const PERIODS = [7, 30, 90] as const
const period = z.object({ days: z.optional(z.enum(['7', '30', '90'])) })

readersPage.get('/:id/readers', page(MEMBER), params(canvasInPath), query(period), async (c) => {
  const { svc, session, actor } = c.var
  const id = c.req.valid('param').id
  const days = Number(c.req.valid('query').days ?? 30)
  const [{ title, views }, csrf] = await Promise.all([
    readCanvasViews(svc, actor, id, days),
    csrfToken(svc, session),
  ])
  return c.html(
    <ReadersView
      user={viewerOf(session)}
      csrf={csrf}
      title={title}
      views={views}
      now={svc.now()}
      mayShare={may(actor, CHANGING)}
    />,
  )
})

const REFUSED: Record<Refusal, string> = {
  expired: 'The link had expired',
  revoked: 'The link had been revoked',
  max_views: 'The link had used up its views',
  wrong_password: 'A wrong password',
}

/**
 * Opens of the canvas's links that were refused, by reason; readers who met a link that no longer
 * opens need a new one, which whoever may share makes from here.
 */
function RefusedOpens(props: { views: Readership; mayShare: boolean }) {
  const { denied, denied_unique } = props.views
  const { reasons, ended } = refusedReasons(denied)
  if (reasons.length === 0) {
    return <p class="muted">No link of this canvas has refused anyone.</p>
  }
  return (
    <>
      <ListTable columns={['Why', 'Opens', 'Readers']}>
        {reasons.map((reason) => (
          <tr>
            <td class="primary-cell">{REFUSED[reason]}</td>
            <td data-label="Opens">{denied[reason]}</td>
            <td data-label="Readers">{denied_unique[reason]}</td>
          </tr>
        ))}
      </ListTable>
      {ended && (
        <p class="row">
          <span>Readers met a link that no longer opens: send them a new one.</span>
          {props.mayShare && <ShareAgain canvasId={props.views.canvas_id} class="btn primary" />}
        </p>
      )}
    </>
  )
}

export function ReadersView(props: {
  user: User
  csrf: string
  title: string
  views: Readership
  now: number
  /** May make share links: the refused opens offer to share again. */
  mayShare: boolean
}) {
  const { views } = props
  const id = views.canvas_id
  return (
    <Layout title={`Readers · ${props.title}`} user={props.user} csrf={props.csrf}>
      <div class="panel readers">
        <h1>Readers of “{props.title}”</h1>
        <p>
          <a class="btn" href={`/c/${id}`}>
            ← Back to the canvas
          </a>
        </p>
        {!views.enabled && (
          <p class="notice">This service counts no reads: VIEW_ANALYTICS is off.</p>
        )}
        <nav class="row" aria-label="Period">
          {PERIODS.map((days) =>
            days === views.days ? (
              <span class="btn" aria-current="page">
                {days} days
              </span>
            ) : (
              <a class="btn" href={`/c/${id}/readers?days=${days}`}>
                {days} days
              </a>
            ),
          )}
        </nav>
        <p id="readers-total">
          {plural(views.total, 'view')} by {plural(views.unique, 'reader')} in the last {views.days}{' '}
          days. A reader is told apart within a day only; people’s reads count, not those of keys
          and apps.
        </p>
        <ViewsChart days={periodDays(views.by_day, views.days, props.now, true)} />
        <h2>By version</h2>
        {views.by_version.length === 0 ? (
          <p class="muted">No reads yet (a read shows here within a minute).</p>
        ) : (
          <ListTable columns={['Version', 'Views']}>
            {views.by_version.map((v) => (
              <tr>
                <td class="primary-cell">v{v.version}</td>
                <td data-label="Views">{v.views}</td>
              </tr>
            ))}
          </ListTable>
        )}
        <h2>By link</h2>
        {views.by_link.length === 0 ? (
          <p class="muted">No reads through a share link.</p>
        ) : (
          <ListTable columns={['Link', 'Views', 'Readers', 'Last read']}>
            {views.by_link.map((l) => (
              <tr>
                <td class="primary-cell">
                  <code>{l.token_prefix}…</code>
                </td>
                <td data-label="Views">{l.views}</td>
                <td data-label="Readers">{l.unique}</td>
                <td data-label="Last read">
                  <span title={calendar(l.last_viewed_at)}>{ago(l.last_viewed_at)}</span>
                </td>
              </tr>
            ))}
          </ListTable>
        )}
        <h2>Refused opens</h2>
        <RefusedOpens views={views} mayShare={props.mayShare} />
        <h2>Members</h2>
        {views.members.length === 0 ? (
          <p class="muted">No member has read it yet (a read shows here within a minute).</p>
        ) : (
          <ListTable columns={['Member', 'Version read', 'Last read']}>
            {views.members.map((m) => (
              <tr>
                <td class="primary-cell">
                  <bdi>{m.name}</bdi>
                </td>
                <td data-label="Version read">v{m.last_version}</td>
                <td data-label="Last read">
                  <span title={calendar(m.last_viewed_at)}>{ago(m.last_viewed_at)}</span>
                </td>
              </tr>
            ))}
          </ListTable>
        )}
      </div>
    </Layout>
  )
}
