import { defineCommand } from 'citty'
import { usageError } from '../errors'
import { begin, globalArgs, note, print, printJson } from '../shared'
import type { CreatedInvite } from '../types'
import { relative } from '../when'
import { ROLES, workspaceArg, workspaceOf, workspacePath } from '../workspace'

export default defineCommand({
  meta: {
    name: 'invite',
    description: 'Make a single-use link that lets a person join a workspace (prints it)',
  },
  args: {
    ...globalArgs,
    ...workspaceArg,
    role: { type: 'string', description: 'viewer, editor, admin or owner (default: editor)' },
    email: { type: 'string', description: 'Only this address may use the link' },
    expires: { type: 'string', description: 'How long the link works: 30m, 24h, 7d (at most 30d)' },
  },
  async run({ args }) {
    const role = args.role ?? 'editor'
    if (!(ROLES as readonly string[]).includes(role)) {
      throw usageError(`--role: must be one of ${ROLES.join(', ')}`)
    }
    const { api } = begin('invite', args)
    const workspaceId = await workspaceOf(api, args.workspace)
    const invite = await api.request<CreatedInvite>(workspacePath(workspaceId, 'invites'), {
      method: 'POST',
      json: {
        role,
        ...(args.email !== undefined && { email: args.email }),
        ...(args.expires !== undefined && { expires_in: args.expires }),
      },
    })
    if (args.json) return printJson({ workspace_id: workspaceId, ...invite })
    print(invite.url)
    const who = invite.email ? `${invite.email}, ` : ''
    note(`joins as ${invite.role} (${who}once; ends ${relative(invite.expires_at)})`)
  },
})
