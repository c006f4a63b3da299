import { defineCommand } from 'citty'
import { CliError } from '../errors'
import { confirm } from '../prompt'
import { begin, globalArgs, print, printJson } from '../shared'
import type { Member } from '../types'
import { workspaceArg, workspaceOf, workspacePath } from '../workspace'

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
    const { members } = await api.request<{ members: Member[] }>(
      workspacePath(workspaceId, 'members'),
    )
    const wanted = args.member.trim().toLowerCase()
    const member = members.find((m) => m.email === wanted || m.user_id === args.member)
    if (!member) {
      throw new CliError(`no member of this workspace is ${args.member}`, 'member_not_found')
    }
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
