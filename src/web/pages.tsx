import type { Child } from 'hono/jsx'
import { formatSize } from '../lib/format'
import { Csrf, Layout } from './layout'

type User = { email: string }

export function AuthPage(props: {
  mode: 'login' | 'signup'
  error?: string
  email?: string
  next?: string
}) {
  const login = props.mode === 'login'
  return (
    <Layout title={login ? 'Log in' : 'Sign up'} main="narrow">
      <div class="panel">
        <h1>{login ? 'Log in to Canvas' : 'Create your Canvas account'}</h1>
        {props.error && (
          <div class="error" role="alert">
            {props.error}
          </div>
        )}
        <form method="post" action={login ? '/login' : '/signup'}>
          {props.next && <input type="hidden" name="next" value={props.next} />}
          <label for="email">Email</label>
          <input
            id="email"
            name="email"
            type="email"
            required
            autocomplete="email"
            value={props.email ?? ''}
          />
          <label for="password">Password</label>
          <input
            id="password"
            name="password"
            type="password"
            required
            minlength={login ? undefined : 8}
            autocomplete={login ? 'current-password' : 'new-password'}
          />
          <p>
            <button class="primary" type="submit">
              {login ? 'Log in' : 'Sign up'}
            </button>
          </p>
        </form>
        <p class="muted">
          {login ? <a href="/signup">Create an account</a> : <a href="/login">I have an account</a>}
        </p>
      </div>
    </Layout>
  )
}

export function ErrorPage(props: {
  status: number
  title: string
  message: string
  user?: User | null
}) {
  return (
    <Layout title={props.title} user={props.user}>
      <div class="panel empty">
        <h1>{props.title}</h1>
        <p>{props.message}</p>
        <p>
          <a href="/">Back to Canvas</a>
        </p>
      </div>
    </Layout>
  )
}

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

function Action(props: {
  csrf: string
  action: string
  label: string
  fields?: Record<string, string>
}) {
  return (
    <form class="inline" method="post" action={props.action}>
      <Csrf token={props.csrf} />
      {Object.entries(props.fields ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <button type="submit">{props.label}</button>
    </form>
  )
}

export function ConfirmDelete(props: {
  user: User
  csrf: string
  canvas: { canvas_id: string; title: string }
}) {
  return (
    <Layout title="Delete canvas" user={props.user} csrf={props.csrf} main="narrow">
      <div class="panel">
        <h1>Delete “{props.canvas.title}”?</h1>
        <p>All of its versions and share links go with it. This cannot be undone.</p>
        <form method="post" action={`/c/${props.canvas.canvas_id}/delete`} class="row">
          <Csrf token={props.csrf} />
          <button class="primary danger" type="submit">
            Delete for good
          </button>
          <a class="btn" href="/">
            Cancel
          </a>
        </form>
      </div>
    </Layout>
  )
}

export type KeyView = {
  key_id: string
  name: string
  prefix: string
  scopes: string[]
  created_at: string
  last_used_at: string | null
}

export function Settings(props: {
  user: User
  csrf: string
  keys: KeyView[]
  created?: { key: string; name: string }
  endpoint: string
  usage: {
    canvases: { total: number }
    versions: number
    bytes: { content: number; stored: number }
  }
  error?: string
}) {
  const { csrf } = props
  return (
    <Layout title="Settings" user={props.user} csrf={csrf}>
      <h1>Settings</h1>
      <h2>Usage</h2>
      <div class="panel stats">
        <div>
          <b>{props.usage.canvases.total}</b>canvases
        </div>
        <div>
          <b>{props.usage.versions}</b>versions
        </div>
        <div>
          <b>{formatSize(props.usage.bytes.content)}</b>content
        </div>
        <div>
          <b>{formatSize(props.usage.bytes.stored)}</b>stored
        </div>
      </div>
      <h2>API keys</h2>
      {props.error && (
        <div class="error" role="alert">
          {props.error}
        </div>
      )}
      {props.created && (
        <div class="success" role="status">
          <p>
            <b>{props.created.name}</b> was created. Copy it now: it is not shown again.
          </p>
          <code class="key" id="new-key">
            {props.created.key}
          </code>
          <p>
            <button type="button" data-copy="new-key">
              Copy key
            </button>
          </p>
          <p>Log in from a terminal:</p>
          <code class="key" id="login-line">
            svc login --token {props.created.key} --endpoint {props.endpoint}
          </code>
          <p>
            <button type="button" data-copy="login-line">
              Copy command
            </button>
          </p>
        </div>
      )}
      <form class="panel row" method="post" action="/settings/keys">
        <Csrf token={csrf} />
        <div>
          <label for="key-name">Name</label>
          <input id="key-name" name="name" required maxlength={100} placeholder="laptop" />
        </div>
        <div>
          <label for="key-scope">Access</label>
          <select id="key-scope" name="scope">
            <option value="write">Read and write</option>
            <option value="read">Read only</option>
          </select>
        </div>
        <button class="primary" type="submit">
          Create key
        </button>
      </form>
      <table class="list spaced">
        <thead>
          <tr>
            <th>Name</th>
            <th>Prefix</th>
            <th>Access</th>
            <th>Created</th>
            <th>Last used</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          {props.keys.length === 0 && (
            <tr>
              <td colspan={6} class="muted">
                No keys yet.
              </td>
            </tr>
          )}
          {props.keys.map((k) => (
            <tr id={`key-${k.key_id}`}>
              <td>{k.name}</td>
              <td>
                <code>{k.prefix}…</code>
              </td>
              <td>{k.scopes.includes('write') ? 'read, write' : 'read'}</td>
              <td>{k.created_at.slice(0, 10)}</td>
              <td>{k.last_used_at ? k.last_used_at.slice(0, 16).replace('T', ' ') : 'never'}</td>
              <td>
                <form class="inline" method="post" action={`/settings/keys/${k.key_id}/revoke`}>
                  <Csrf token={csrf} />
                  <button class="danger" type="submit">
                    Revoke
                  </button>
                </form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Layout>
  )
}

export function relative(isoTime: string): string {
  const ms = Date.parse(isoTime) - Date.now()
  const hours = Math.round(ms / 3600_000)
  if (ms <= 0) return 'expired'
  if (hours < 1) return `in ${Math.max(1, Math.round(ms / 60_000))} min`
  if (hours < 48) return `in ${hours} h`
  return `in ${Math.round(hours / 24)} days`
}
