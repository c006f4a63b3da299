import { defineCommand } from 'citty'
import { begin, globalArgs, print, printJson, table } from '../shared'
import type { Me, WorkspaceEntry } from '../types'

export default defineCommand({
  meta: {
    name: 'workspaces',
    description: 'List your workspaces and your role in each; * marks the one the key acts in',
  },
  args: { ...globalArgs },
  async run({ args }) {
    const { api } = begin('workspaces', args)
    const [{ workspaces }, me] = await Promise.all([
      api.request<{ workspaces: WorkspaceEntry[] }>('/v1/workspaces'),
      api.request<Me>('/v1/me'),
    ])
    const current = me.workspace.workspace_id
    if (args.json) {
      return printJson({
        workspaces: workspaces.map((w) => ({ ...w, current: w.workspace_id === current })),
      })
    }
    const rows = workspaces.map((w) => [
      w.workspace_id === current ? '*' : ' ',
      w.workspace_id,
      w.name,
      w.role,
      w.personal ? 'personal' : 'team',
    ])
    print(table(['', 'ID', 'NAME', 'ROLE', 'KIND'], rows))
  },
})
