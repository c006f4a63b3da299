import type { Child } from 'hono/jsx'
import { formatSize } from '../../lib/format'
import { Action } from './action'
import { Csrf, Layout, type User } from './layout'
import { relative } from './relative'

export type DashboardCanvas = {
  canvas_id: string
  title: string
  ext: string
  renderer_id: string
  visibility: string
  version: number
  size: number
  created_at: string
  expires_at: string | null
}

export function Dashboard(props: {
  user: User
  csrf: string
  canvases: DashboardCanvas[]
  filters: { ext?: string; visibility?: string }
  page: number
  hasMore: boolean
  flash?: Child
  webOrigin: string
}) {
  const { csrf } = props
  const query = (page: number) => {
    const params = new URLSearchParams()
    if (props.filters.ext) params.set('type', props.filters.ext)
    if (props.filters.visibility) params.set('visibility', props.filters.visibility)
    if (page > 1) params.set('page', String(page))
    const text = params.toString()
    return text ? `/?${text}` : '/'
  }
  return (
    <Layout title="Canvases" user={props.user} csrf={csrf}>
      <h1>Canvases</h1>
      {props.flash}
      <form class="filters" method="get" action="/">
        <input
          name="type"
          placeholder="Type, e.g. html"
          value={props.filters.ext ?? ''}
          aria-label="Type"
        />
        <select name="visibility" aria-label="Visibility">
          <option value="">Any visibility</option>
          <option value="private" selected={props.filters.visibility === 'private'}>
            Private
          </option>
          <option value="public" selected={props.filters.visibility === 'public'}>
            Public
          </option>
        </select>
        <button type="submit">Filter</button>
      </form>
      {props.canvases.length === 0 ? (
        <div class="panel empty">
          No canvases yet. Push one with <code>svc push report.html</code>.
        </div>
      ) : (
        <table class="list">
          <thead>
            <tr>
              <th>Title</th>
              <th>Type</th>
              <th>Visibility</th>
              <th>Version</th>
              <th>Expiry</th>
              <th>Created</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {props.canvases.map((c) => (
              <tr id={`canvas-${c.canvas_id}`}>
                <td>
                  <a href={`/c/${c.canvas_id}`}>{c.title}</a>
                  <div class="muted">{formatSize(c.size)}</div>
                </td>
                <td>
                  <span class="chip">{c.ext}</span> <span class="muted">{c.renderer_id}</span>
                </td>
                <td>
                  <span class={`chip ${c.visibility}`}>{c.visibility}</span>
                </td>
                <td>v{c.version}</td>
                <td>
                  {c.expires_at ? (
                    <span title={c.expires_at}>{relative(c.expires_at)}</span>
                  ) : (
                    'permanent'
                  )}
                </td>
                <td title={c.created_at}>{c.created_at.slice(0, 10)}</td>
                <td>
                  <div class="actions">
                    <a class="btn" href={`/c/${c.canvas_id}`}>
                      Open
                    </a>
                    {c.expires_at && (
                      <Action
                        csrf={csrf}
                        action={`/c/${c.canvas_id}/permanent`}
                        label="Make permanent"
                      />
                    )}
                    <Action
                      csrf={csrf}
                      action={`/c/${c.canvas_id}/visibility`}
                      label={c.visibility === 'public' ? 'Make private' : 'Make public'}
                      fields={{ visibility: c.visibility === 'public' ? 'private' : 'public' }}
                    />
                    <details class="menu">
                      <summary class="btn">Share…</summary>
                      <form method="post" action={`/c/${c.canvas_id}/share`}>
                        <Csrf token={csrf} />
                        <select name="expires_in" aria-label="Link lifetime">
                          <option value="">Never expires</option>
                          <option value="1h">1 hour</option>
                          <option value="24h">24 hours</option>
                          <option value="7d">7 days</option>
                          <option value="30d">30 days</option>
                        </select>
                        <input
                          name="password"
                          type="password"
                          placeholder="Password (optional)"
                          aria-label="Link password"
                          autocomplete="new-password"
                        />
                        <button type="submit">Create link</button>
                      </form>
                    </details>
                    <Action csrf={csrf} action={`/c/${c.canvas_id}/unshare`} label="Revoke links" />
                    <a class="btn danger" href={`/c/${c.canvas_id}/delete`}>
                      Delete
                    </a>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div class="pager">
        <span>{props.page > 1 && <a href={query(props.page - 1)}>← Newer</a>}</span>
        <span>{props.hasMore && <a href={query(props.page + 1)}>Older →</a>}</span>
      </div>
    </Layout>
  )
}
