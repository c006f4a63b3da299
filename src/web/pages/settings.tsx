import { formatSize } from '../../lib/format'
import { Csrf, Layout, type User } from './layout'

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
