import { defineCommand } from 'citty'
import type { Role } from '../../src/schema/requests'
import { usageError } from '../errors'
import { begin, globalArgs, print, printJson } from '../shared'
import { memberOf, ROLES, workspaceArg, workspaceOf, workspacePath } from '../workspace'

// `svc role`: a member's role in a workspace (admins; an owner's, or to make one, owners only).

export default defineCommand({
  meta: { name: 'role', description: 'Change the role of a member of a workspace' },
  args: {
    ...globalArgs,
    ...workspaceArg,
    member: { type: 'positional', required: true, description: 'Their email or user id' },
    role: { type: 'positional', required: true, description: `One of ${ROLES.join(', ')}` },
  },
  async run({ args }) {
    const role = args.role.trim().toLowerCase() as Role
    if (!ROLES.includes(role)) throw usageError(`<role>: one of ${ROLES.join(', ')}`)
    const { api } = begin('role', args)
    const workspaceId = await workspaceOf(api, args.workspace)
    const member = await memberOf(api, workspaceId, args.member)
    const changed = await api.request<{ user_id: string; role: Role }>(
      workspacePath(workspaceId, `members/${encodeURIComponent(member.user_id)}`),
      { method: 'PATCH', json: { role } },
    )
    if (args.json) {
      return printJson({
        workspace_id: workspaceId,
        ...changed,
        email: member.email,
        from: member.role,
      })
    }
    print(
      member.role === changed.role
        ? `${member.email} is ${changed.role} already`
        : `${member.email} is now ${changed.role} (was ${member.role})`,
    )
  },
})
