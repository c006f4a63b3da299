import type { AuditEvent } from '../../domain/audit/record'
import { AUDIT_ACTIONS, type AuditAction } from '../../lib/audit'
import { calendar } from '../../lib/time'
import { ListTable } from '../pages/list-table'
import { Layout, type User } from '../pages/layout'
import { Ago } from '../pages/when'

type Props = {
  user: User
  workspace: { name: string }
  csrf: string
  events: AuditEvent[]
  filters: { action?: string; actor?: string; target?: string }
  /** Where the next page starts, when there is one. */
  older: string | null
}

/** /settings/activity: the workspace's audit log, newest first, for its admins. */
export function ActivityPage(props: Props) {
  const { filters } = props
  const filtered = Boolean(filters.action || filters.actor || filters.target)
  const query = (cursor: string) => {
    const params = new URLSearchParams()
    for (const [name, value] of Object.entries(filters)) if (value) params.set(name, value)
    params.set('cursor', cursor)
    return `/settings/activity?${params}`
  }
  return (
    <Layout title="Activity" user={props.user} csrf={props.csrf}>
      <h1>Activity</h1>
      <p class="muted">
        Every change in <bdi dir="auto">{props.workspace.name}</bdi>, newest first: who made it, how
        they came, and what it touched. Nothing here can be changed or deleted.
      </p>
      <form class="row filters" method="get" action="/settings/activity" role="search">
        <select name="action" aria-label="Action">
          <option value="">Every action</option>
          {AUDIT_ACTIONS.map((action) => (
            <option value={action} selected={filters.action === action}>
              {action}
            </option>
          ))}
        </select>
        <div class="grow">
          <input
            name="actor"
            type="search"
            placeholder="Who: an email, a key’s name"
            value={filters.actor ?? ''}
            aria-label="Who"
            maxlength={254}
          />
        </div>
        {filters.target && <input type="hidden" name="target" value={filters.target} />}
        <button type="submit">Filter</button>
        {filtered && (
          <a class="btn" href="/settings/activity">
            Clear
          </a>
        )}
      </form>
      {props.events.length === 0 ? (
        <div class="panel empty">
          {filtered ? 'No event matches these filters.' : 'Nothing has happened here yet.'}
        </div>
      ) : (
        <ListTable columns={['When', 'Who', 'What', 'Details']} class="spaced">
          {props.events.map((event) => (
            <EventRow event={event} />
          ))}
        </ListTable>
      )}
      {props.older && (
        <nav class="pager" aria-label="Pages">
          <span />
          <span>
            <a class="btn" href={query(props.older)}>
              Older →
            </a>
          </span>
        </nav>
      )}
    </Layout>
  )
}

const KIND_WORDS: Record<AuditEvent['actor']['kind'], string> = {
  member: 'on the web',
  key: 'API key',
  agent: 'app',
  visitor: 'not signed in',
  system: 'by itself',
}

const ACTION_WORDS: Record<AuditAction, string> = {
  'canvas.created': 'published a canvas',
  'canvas.version_created': 'published a new version',
  'canvas.rolled_back': 'rolled a canvas back',
  'canvas.updated': 'changed a canvas',
  'canvas.visibility_changed': 'changed who sees a canvas',
  'canvas.made_permanent': 'made a canvas permanent',
  'canvas.deleted': 'deleted a canvas',
  'canvas.expired': 'let a canvas expire',
  'share.created': 'made a share link',
  'share.revoked': 'revoked a share link',
  'comment.deleted': 'deleted a comment',
  'review.requested': 'asked for a review',
  'review.decided': 'decided a review',
  'key.created': 'made an API key',
  'key.revoked': 'revoked an API key',
  'oauth.connected': 'connected an app',
  'oauth.disconnected': 'disconnected an app',
  'webhook.created': 'added a webhook',
  'webhook.deleted': 'deleted a webhook',
  'member.invited': 'invited someone',
  'member.invite_revoked': 'revoked an invite',
  'member.joined': 'joined',
  'member.role_changed': 'changed a member’s role',
  'member.removed': 'removed a member',
  'workspace.created': 'made the workspace',
  'workspace.renamed': 'renamed the workspace',
  'workspace.settings_changed': 'changed the workspace’s settings',
  'auth.login': 'signed in',
  'auth.login_failed': 'failed to sign in',
  'auth.password_changed': 'changed their password',
  'auth.password_reset_link': 'made a password reset link',
  'auth.password_reset': 'chose a new password by a reset link',
}

function EventRow({ event }: { event: AuditEvent }) {
  return (
    <tr>
      <td class="nowrap" data-label="When">
        <Ago at={event.at} />
      </td>
      <td data-label="Who">
        <Who actor={event.actor} />
      </td>
      <td class="primary-cell" data-label="What">
        {ACTION_WORDS[event.action]}{' '}
        <a
          class="muted in-text"
          href={`/settings/activity?target=${encodeURIComponent(event.target.id)}`}
          title={`Everything about this ${event.target.type}`}
        >
          ({event.target.type} {event.target.id.slice(0, 8)})
        </a>
        <br />
        <code class="muted">{event.action}</code>
      </td>
      <td data-label="Details">{detailWords(event.details)}</td>
    </tr>
  )
}

/**
 * Who did it: a key's or an app's name beside its person's email ("svc on vm · ada@…"), a member
 * by email; the person's email filters the log to everything they did, by any credential.
 */
function Who({ actor }: { actor: AuditEvent['actor'] }) {
  const person = actor.person
  const everything = person && `/settings/activity?actor=${encodeURIComponent(person.email)}`
  const byCredential = actor.kind === 'key' || actor.kind === 'agent'
  return (
    <>
      {byCredential && (
        <>
          <bdi dir="auto">{actor.name}</bdi>
          {person ? ' · ' : ' '}
        </>
      )}
      {person ? (
        <a class="in-text cell-link" href={everything} title={`Everything ${person.name} did`}>
          <bdi dir="auto">{person.email}</bdi>
        </a>
      ) : (
        !byCredential && <bdi dir="auto">{actor.name}</bdi>
      )}{' '}
      <span class="muted nowrap">· {KIND_WORDS[actor.kind]}</span>
    </>
  )
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/

/** The details as "name: value" pairs, in the order they were written; times as dates. */
function detailWords(details: Record<string, unknown>) {
  const shown = (v: unknown) =>
    Array.isArray(v)
      ? v.join(', ')
      : typeof v === 'string' && ISO_TIME.test(v)
        ? calendar(v)
        : String(v)
  return Object.entries(details)
    .filter(([, v]) => v !== null && v !== undefined && v !== false)
    .map(([k, v]) => `${k.replace(/_/g, ' ')}: ${shown(v)}`)
    .join(' · ')
}
