import { outranks } from '../../domain/workspaces/roles'
import type { Invite } from '../../domain/workspaces/invites'
import type { Member } from '../../domain/workspaces/members'
import type { Workspace } from '../../domain/workspaces/workspaces'
import type { Role } from '../../schema/requests'
import type { Flash } from '../flash'
import { ListTable } from '../pages/list-table'
import { Csrf, Layout, type User } from '../pages/layout'
import { flashAt, Notice } from '../pages/notice'
import { Ago, Until } from '../pages/when'
import { SettingsSection, type SettingsView } from './settings-section'

const ROLE_WORDS: Record<Role, string> = {
  viewer: 'reads and comments',
  editor: 'publishes, shares and deletes',
  admin: 'also manages members and webhooks',
  owner: 'everything, owners too',
}

type Props = {
  user: User
  workspace: { workspace_id: string; name: string; role: Role }
  csrf: string
  members: Member[]
  /** Null for a member who is not an admin: invites are not theirs to see. */
  invites: Invite[] | null
  workspaces: Workspace[]
  /** Null for a member who is not an admin. */
  settings: SettingsView | null
  /** Whether admins here may make password reset links (passwords sign in on this server). */
  resets: boolean
  flash?: Flash
}

/** /settings/members: who is in this workspace, pending invites, and the person's workspaces. */
export function MembersPage(props: Props) {
  const { workspace, csrf } = props
  const admin = props.invites !== null
  return (
    <Layout title="Members" user={props.user} csrf={csrf}>
      <h1>
        <bdi dir="auto">{workspace.name}</bdi>
      </h1>
      <p class="muted">
        You are {article(workspace.role)} {workspace.role} here: {ROLE_WORDS[workspace.role]}.
        {admin && (
          <>
            {' '}
            <a href="/settings/activity">See what has changed here</a>.
          </>
        )}
      </p>
      <h2 id="members">Members</h2>
      <Notice flash={flashAt(props.flash, 'members')} />
      <MemberTable {...props} admin={admin} />
      {props.invites && <Invites invites={props.invites} csrf={csrf} flash={props.flash} />}
      {props.settings && (
        <SettingsSection
          workspace={workspace}
          personal={props.workspaces.some(
            (w) => w.workspace_id === workspace.workspace_id && w.personal,
          )}
          settings={props.settings}
          csrf={csrf}
          flash={props.flash}
        />
      )}
      <Workspaces {...props} />
    </Layout>
  )
}

const article = (role: Role) => (/^[aeio]/.test(role) ? 'an' : 'a')

function MemberTable(props: Props & { admin: boolean }) {
  const self = props.user.email
  // The last owner cannot leave (nor be removed): they are not offered it.
  const lastOwner = props.members.filter((m) => m.role === 'owner').length === 1
  return (
    <ListTable columns={['Email', 'Role', 'Joined']} actions class="spaced">
      {props.members.map((m) => (
        <tr id={`member-${m.user_id}`}>
          <td class="primary-cell">{m.email}</td>
          <td data-label="Role">
            {props.admin && m.email !== self ? (
              <form class="row" method="post" action={`/settings/members/${m.user_id}/role`}>
                <Csrf token={props.csrf} />
                <RoleSelect id={`role-${m.user_id}`} label={`Role of ${m.email}`} value={m.role} />
                <button class="small" type="submit">
                  Change
                </button>
              </form>
            ) : (
              m.role
            )}
          </td>
          <td data-label="Joined" class="nowrap">
            <Ago at={m.joined_at} />
          </td>
          <td class="end">
            {props.resets && props.admin && outranks(props.workspace.role, m.role) && (
              <form
                class="inline"
                method="post"
                action={`/settings/members/${m.user_id}/reset-link`}
              >
                <Csrf token={props.csrf} />
                <button
                  class="small"
                  type="submit"
                  title={`A one-time link for ${m.email} to choose a new password`}
                >
                  Reset link
                </button>
              </form>
            )}{' '}
            {m.email === self && m.role === 'owner' && lastOwner ? (
              <span class="hint">Its only owner: make another member an owner to leave.</span>
            ) : (
              (props.admin || m.email === self) && (
                <details class="dialog">
                  <summary class="btn small danger">
                    {m.email === self ? 'Leave…' : 'Remove…'}
                  </summary>
                  <form class="row" method="post" action={`/settings/members/${m.user_id}/remove`}>
                    <Csrf token={props.csrf} />
                    <span class="hint">
                      {m.email === self
                        ? 'You lose this workspace; your keys for it stop.'
                        : 'Their keys and apps stop at once; their canvases stay.'}
                    </span>
                    <button class="small danger solid" type="submit">
                      {m.email === self ? 'Leave the workspace' : `Remove ${m.email}`}
                    </button>
                  </form>
                </details>
              )
            )}
          </td>
        </tr>
      ))}
    </ListTable>
  )
}

function RoleSelect(props: { id: string; label: string; value: Role }) {
  return (
    <select id={props.id} name="role" aria-label={props.label}>
      {(['viewer', 'editor', 'admin', 'owner'] as const).map((role) => (
        <option value={role} selected={role === props.value}>
          {role}
        </option>
      ))}
    </select>
  )
}

function Invites(props: { invites: Invite[]; csrf: string; flash?: Flash }) {
  return (
    <>
      <h2 id="invites">Invite people</h2>
      <p class="muted">
        A link that lets one person join, once: send it however you like. It works for 7 days unless
        you choose otherwise.
      </p>
      <Notice flash={flashAt(props.flash, 'invites')} />
      <form class="panel row" method="post" action="/settings/members/invites">
        <Csrf token={props.csrf} />
        <div>
          <label for="invite-role">Role</label>
          <select id="invite-role" name="role">
            <option value="editor">editor</option>
            <option value="viewer">viewer</option>
            <option value="admin">admin</option>
            <option value="owner">owner</option>
          </select>
        </div>
        <div>
          <label for="invite-email">Only for (optional)</label>
          <input id="invite-email" name="email" type="email" placeholder="ada@example.com" />
        </div>
        <div>
          <label for="invite-expires">Works for</label>
          <select id="invite-expires" name="expires_in">
            <option value="1d">1 day</option>
            <option value="7d" selected>
              7 days
            </option>
            <option value="30d">30 days</option>
          </select>
        </div>
        <button class="primary" type="submit">
          Make an invite link
        </button>
      </form>
      {props.invites.length === 0 ? (
        <p class="muted">No pending invites.</p>
      ) : (
        <ListTable columns={['Role', 'For', 'Made', 'Ends']} actions class="spaced">
          {props.invites.map((invite) => (
            <tr id={`invite-${invite.invite_id}`}>
              <td class="primary-cell">{invite.role}</td>
              <td data-label="For">{invite.email ?? 'anyone with the link'}</td>
              <td data-label="Made" class="nowrap">
                <Ago at={invite.created_at} />
              </td>
              <td data-label="Ends" class="nowrap">
                <Until at={invite.expires_at} />
              </td>
              <td class="end">
                <form method="post" action={`/settings/members/invites/${invite.invite_id}/revoke`}>
                  <Csrf token={props.csrf} />
                  <button class="small danger" type="submit">
                    Revoke
                  </button>
                </form>
              </td>
            </tr>
          ))}
        </ListTable>
      )}
    </>
  )
}

function Workspaces(props: Props) {
  return (
    <>
      <h2 id="workspaces">Your workspaces</h2>
      <Notice flash={flashAt(props.flash, 'workspaces')} />
      <ListTable columns={['Name', 'Your role']} actions class="spaced">
        {props.workspaces.map((w) => (
          <tr id={`workspace-${w.workspace_id}`}>
            <td class="primary-cell">
              <bdi dir="auto">{w.name}</bdi>
              {w.personal && <span class="muted"> (yours)</span>}
            </td>
            <td data-label="Your role">{w.role}</td>
            <td class="end">
              {w.workspace_id === props.workspace.workspace_id ? (
                <span class="muted">You are here</span>
              ) : (
                <form method="post" action="/settings/members/switch">
                  <Csrf token={props.csrf} />
                  <input type="hidden" name="workspace_id" value={w.workspace_id} />
                  <button class="small" type="submit">
                    Switch
                  </button>
                </form>
              )}
            </td>
          </tr>
        ))}
      </ListTable>
      <form class="panel row spaced" method="post" action="/settings/members/workspaces">
        <Csrf token={props.csrf} />
        <div>
          <label for="workspace-name">New workspace</label>
          <input id="workspace-name" name="name" required maxlength={100} placeholder="Research" />
        </div>
        <button class="primary" type="submit">
          Make it
        </button>
      </form>
    </>
  )
}
