import { defineCommand } from 'citty'
import { begin, globalArgs, print, printJson, table } from '../shared'
import type { Member } from '../types'
import { ago } from '../when'
import { workspaceArg, workspaceOf, workspacePath } from '../workspace'

export default defineCommand({
  meta: { name: 'members', description: 'List the members of a workspace and their roles' },
  args: { ...globalArgs, ...workspaceArg },
  async run({ args }) {
    const { api } = begin('members', args)
    const workspaceId = await workspaceOf(api, args.workspace)
    const { members } = await api.request<{ members: Member[] }>(
      workspacePath(workspaceId, 'members'),
    )
    if (args.json) return printJson({ workspace_id: workspaceId, members })
    const rows = members.map((m) => [m.email, m.role, ago(m.joined_at), m.user_id])
    print(table(['EMAIL', 'ROLE', 'JOINED', 'USER ID'], rows))
  },
})
