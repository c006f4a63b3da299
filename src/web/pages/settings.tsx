import { formatSize } from '../../lib/format'
import type { Flash } from '../flash'
import { Csrf, Layout, type User } from './layout'
import { ListTable } from './list-table'
import { Notice } from './notice'
import { WebhooksSection, type WebhookView } from './webhooks-section'

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
  flash?: Flash
  usage: {
    canvases: { total: number }
    versions: number
    bytes: { content: number; stored: number }
  }
  error?: string
  webhooks: WebhookView[]
  webhookError?: string
}) {
  const { csrf } = props
  const webhooksFlash = props.flash?.section === 'webhooks' ? props.flash : undefined
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
      <p class="muted">
        Keys let the <code>svc</code> command line tool, scripts and agents publish as you. See the{' '}
        <a href="/docs">API and MCP documentation</a>.
      </p>
      <Notice flash={webhooksFlash ? undefined : props.flash} />
      {props.error && (
        <div class="notice error" role="alert">
          {props.error}
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
      {props.keys.length === 0 ? (
        <p class="muted">No keys yet.</p>
      ) : (
        <ListTable
          columns={['Name', 'Prefix', 'Access', 'Created', 'Last used']}
          actions
          class="spaced"
        >
          {props.keys.map((k) => (
            <tr id={`key-${k.key_id}`}>
              <td class="primary-cell">{k.name}</td>
              <td data-label="Prefix">
                <code>{k.prefix}…</code>
              </td>
              <td data-label="Access">{k.scopes.includes('write') ? 'read, write' : 'read'}</td>
              <td data-label="Created" class="nowrap">
                {k.created_at.slice(0, 10)}
              </td>
              <td data-label="Last used" class="nowrap">
                {k.last_used_at ? k.last_used_at.slice(0, 16).replace('T', ' ') : 'never'}
              </td>
              <td class="end">
                <details class="dialog">
                  <summary class="btn small danger">Revoke…</summary>
                  <form class="row" method="post" action={`/settings/keys/${k.key_id}/revoke`}>
                    <Csrf token={csrf} />
                    <span class="hint">Whatever uses it stops working.</span>
                    <button class="small danger solid" type="submit">
                      Revoke {k.name}
                    </button>
                  </form>
                </details>
              </td>
            </tr>
          ))}
        </ListTable>
      )}
      <WebhooksSection
        csrf={csrf}
        webhooks={props.webhooks}
        flash={webhooksFlash}
        error={props.webhookError}
      />
    </Layout>
  )
}
