import type { Share } from '../../schema/responses'
import { Csrf } from '../pages/layout'
import { ListTable } from '../pages/list-table'
import { calendar, relative } from '../../lib/time'

export type ReadersNow = { latest: number; approved: number | null; requireReview: boolean }

/** Which version a link's readers see now, and why. */
export function readersSee(share: Share, now: ReadersNow): string {
  if (share.follow === 'approved' || now.requireReview) {
    const why = share.follow === 'approved' ? 'approved' : 'approved: the workspace requires review'
    return now.approved === null ? `nothing yet (${why})` : `v${now.approved} (${why})`
  }
  return share.version === null ? `v${now.latest} (the latest)` : `v${share.version} only`
}

/** A canvas's share links: each with its address, limits and use, and its own revoke. */
export function ShareList(props: {
  canvasId: string
  shares: Share[]
  origin: string
  csrf: string
  /** What readers see now: the latest and approved versions, and whether review is required. */
  now: ReadersNow
}) {
  const { canvasId, shares, csrf } = props
  if (shares.length === 0) {
    return <p class="muted">No share links. Create one below to show this canvas to anyone.</p>
  }
  return (
    <>
      <ListTable
        columns={['Link', 'Expires', 'Views', 'Readers see', 'Password', 'Comments']}
        actions
      >
        {shares.map((s) => (
          <tr id={`share-${s.token}`}>
            <td class="primary-cell">
              <code id={`link-${s.token}`}>{`${props.origin}/s/${s.token}`}</code>
            </td>
            <td data-label="Expires" class="nowrap">
              {s.expires_at ? (
                <span title={calendar(s.expires_at)}>{relative(s.expires_at)}</span>
              ) : (
                'never'
              )}
            </td>
            <td data-label="Views">
              {s.max_views === null ? s.view_count : `${s.view_count} of ${s.max_views}`}
            </td>
            <td data-label="Readers see">{readersSee(s, props.now)}</td>
            <td data-label="Password">{s.has_password ? 'yes' : 'no'}</td>
            <td data-label="Comments">{s.allow_comments ? 'allowed' : 'no'}</td>
            <td class="end">
              <div class="actions">
                <button type="button" class="small" data-copy={`link-${s.token}`}>
                  Copy
                </button>
                <form
                  class="inline"
                  method="post"
                  action={`/c/${canvasId}/shares/${s.token}/revoke`}
                >
                  <Csrf token={csrf} />
                  <button type="submit" class="small danger">
                    Revoke
                  </button>
                </form>
              </div>
            </td>
          </tr>
        ))}
      </ListTable>
      {shares.length > 1 && (
        <details class="dialog spaced">
          <summary class="btn danger">Revoke all {shares.length} links…</summary>
          <form class="row" method="post" action={`/c/${canvasId}/unshare`}>
            <Csrf token={csrf} />
            <span>Everyone holding one of these links loses access at once.</span>
            <button type="submit" class="danger solid">
              Revoke all
            </button>
          </form>
        </details>
      )}
    </>
  )
}
