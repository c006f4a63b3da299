import type { ActsIn } from '../../domain/keys'
import type { ConnectedApp } from '../../domain/oauth/grants'
import type { Flash } from '../flash'
import { Csrf } from '../pages/layout'
import { ListTable } from '../pages/list-table'
import { flashTop, FormError, Notice } from '../pages/notice'
import { Ago } from '../pages/when'

// The Settings page's keys and connected apps: what acts for the person, in which workspace, and
// the one click that ends it.

export type KeyView = {
  key_id: string
  name: string
  prefix: string
  scopes: string[]
  created_at: string
  last_used_at: string | null
  acts_in: ActsIn
}

/** The person's API keys in every workspace, and the form that makes one in this one. */
export function KeysSection(props: {
  csrf: string
  keys: KeyView[]
  /** The workspace a new key acts in. */
  workspace: string | undefined
  flash?: Flash
  error?: string
}) {
  return (
    <>
      <h2>API keys</h2>
      <p class="muted">
        Keys let the <code>svc</code> command line tool, scripts and agents publish as you; signing
        in with <code>svc login</code> makes one. Each acts in one workspace: yours in every
        workspace are listed here, and a new one acts in{' '}
        <strong>
          <bdi dir="auto">{props.workspace}</bdi>
        </strong>
        . See the <a href="/docs">API and MCP documentation</a>.
      </p>
      <Notice flash={flashTop(props.flash, ['webhooks', 'name', 'password'])} />
      {props.error && <FormError>{props.error}</FormError>}
      <form class="panel row" method="post" action="/settings/keys">
        <Csrf token={props.csrf} />
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
          columns={['Name', 'Workspace', 'Prefix', 'Access', 'Created', 'Last used']}
          actions
          class="spaced"
        >
          {props.keys.map((k) => (
            <tr id={`key-${k.key_id}`}>
              <td class="primary-cell">{k.name}</td>
              <ActsInCell actsIn={k.acts_in} />
              <td data-label="Prefix">
                <code>{k.prefix}…</code>
              </td>
              <AccessCells
                scopes={k.scopes}
                label="Created"
                since={k.created_at}
                lastUsed={k.last_used_at}
              />
              <EndAccess
                verb="Revoke"
                name={k.name}
                action={`/settings/keys/${k.key_id}/revoke`}
                actsIn={k.acts_in}
                hint="Whatever uses it stops working."
                csrf={props.csrf}
              />
            </tr>
          ))}
        </ListTable>
      )}
    </>
  )
}

/** The chat apps the person allowed, in every workspace. */
export function AppsSection(props: { csrf: string; apps: ConnectedApp[] }) {
  return (
    <>
      <h2>Connected apps</h2>
      <p class="muted">
        Chat apps you allowed to use Canvas for you (Claude, ChatGPT and others connect by the
        address <code>/mcp</code>, with your approval).
      </p>
      {props.apps.length === 0 ? (
        <p class="muted">No apps connected.</p>
      ) : (
        <ListTable
          columns={['Name', 'Workspace', 'Access', 'Connected', 'Last used']}
          actions
          class="spaced"
        >
          {props.apps.map((app) => (
            <tr id={`app-${app.grant_id}`}>
              <td class="primary-cell">
                <bdi dir="auto">{app.name}</bdi>
              </td>
              <ActsInCell actsIn={app.acts_in} />
              <AccessCells
                scopes={app.scopes}
                label="Connected"
                since={app.created_at}
                lastUsed={app.last_used_at}
              />
              <EndAccess
                verb="Disconnect"
                name={app.name}
                action={`/settings/apps/${app.grant_id}/revoke`}
                actsIn={app.acts_in}
                hint="Its access ends at once."
                csrf={props.csrf}
              />
            </tr>
          ))}
        </ListTable>
      )}
    </>
  )
}

/** What a key or a connected app may do, since when, and when it was last used. */
function AccessCells(props: {
  scopes: string[]
  label: string
  since: string
  lastUsed: string | null | undefined
}) {
  return (
    <>
      <td data-label="Access">{props.scopes.includes('write') ? 'read, write' : 'read'}</td>
      <td data-label={props.label} class="nowrap">
        <Ago at={props.since} />
      </td>
      <td data-label="Last used" class="nowrap">
        {props.lastUsed ? <Ago at={props.lastUsed} /> : 'never'}
      </td>
    </>
  )
}

/** The workspace a key or an app acts in. */
function ActsInCell(props: { actsIn: ActsIn }) {
  return (
    <td data-label="Workspace">
      <bdi dir="auto">{props.actsIn.name}</bdi>
    </td>
  )
}

/**
 * A row's last cell: a confirmation that ends a key's or an app's access at once, in the workspace
 * it acts in (which may not be the one the page is in).
 */
function EndAccess(props: {
  verb: string
  name: string
  action: string
  hint: string
  csrf: string
  actsIn: ActsIn
}) {
  return (
    <td class="end">
      <details class="dialog">
        <summary class="btn small danger">{props.verb}…</summary>
        <form class="row" method="post" action={props.action}>
          <Csrf token={props.csrf} />
          <input type="hidden" name="workspace_id" value={props.actsIn.workspace_id} />
          <span class="hint">{props.hint}</span>
          <button class="small danger solid" type="submit">
            {props.verb} {props.name}
          </button>
        </form>
      </details>
    </td>
  )
}
