import type { Api } from './client'
import { CliError } from './errors'
import type { Me, Member } from './types'

// The workspace a team command acts on: the one named by --workspace, else the key's own.

/** A member's roles, least first (the API's, which the CLI takes as types only). */
export const ROLES = ['viewer', 'editor', 'admin', 'owner'] as const

export const workspaceArg = {
  workspace: {
    type: 'string',
    description: 'The workspace id (default: the one the key acts in; see svc workspaces)',
  },
} as const

/** The id of the workspace `--workspace` names, or the key's. */
export async function workspaceOf(api: Api, named: string | undefined): Promise<string> {
  if (named) return named
  const me = await api.request<Me>('/v1/me')
  return me.workspace.workspace_id
}

/** The API path of a workspace's `part` (members, invites). */
export const workspacePath = (workspaceId: string, part: string) =>
  `/v1/workspaces/${encodeURIComponent(workspaceId)}/${part}`

/** The member of the workspace a command names by email or user id; none is member_not_found. */
export async function memberOf(api: Api, workspaceId: string, given: string): Promise<Member> {
  const { members } = await api.request<{ members: Member[] }>(
    workspacePath(workspaceId, 'members'),
  )
  const wanted = given.trim().toLowerCase()
  const member = members.find((m) => m.email === wanted || m.user_id === given)
  if (!member) throw new CliError(`no member of this workspace is ${given}`, 'member_not_found')
  return member
}
