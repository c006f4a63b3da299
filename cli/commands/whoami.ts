import { defineCommand } from 'citty'
import { begin, globalArgs, print, printJson } from '../shared'
import type { Me } from '../types'

export default defineCommand({
  meta: { name: 'whoami', description: 'Show the authenticated user and workspace' },
  args: { ...globalArgs },
  async run({ args }) {
    const { api, settings } = begin('whoami', args)
    const me = await api.request<Me>('/v1/me')
    if (args.json) return printJson({ ...me, endpoint: settings.endpoint })
    print(`${me.user.email}`)
    print(`workspace ${me.workspace.name} (${me.workspace.workspace_id})`)
    print(`key ${me.key.name} [${me.key.scopes.join(', ')}] at ${settings.endpoint}`)
  },
})
