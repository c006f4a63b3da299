import { defineCommand } from 'citty'
import { confirm } from '../prompt'
import { begin, globalArgs, print, printJson } from '../shared'
import { memberOf, workspaceArg, workspaceOf, workspacePath } from '../workspace'

export default defineCommand({
  meta: {
    name: 'remove-member',
    description: 'Remove a member from a workspace (their keys stop at once; canvases stay)',
  },
  args: {
    ...globalArgs,
    ...workspaceArg,
    member: { type: 'positional', required: true, description: 'Their email or user id' },
    yes: { type: 'boolean', alias: 'y', description: 'Remove without asking' },
  },
  async run({ args }) {
    const { api } = begin('remove-member', args)
    const workspaceId = await workspaceOf(api, args.workspace)
    const member = await memberOf(api, workspaceId, args.member)
    if (!args.yes) {
      await confirm(`Remove ${member.email} (${member.role}) from the workspace?`, 'remove', 'kept')
    }
    await api.request(workspacePath(workspaceId, `members/${encodeURIComponent(member.user_id)}`), {
      method: 'DELETE',
    })
    if (args.json) return printJson({ workspace_id: workspaceId, ...member, removed: true })
    print(`removed ${member.email}`)
  },
})
