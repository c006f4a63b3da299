import { defineCommand } from 'citty'
import { begin, globalArgs, humanSize, print, printJson } from '../shared'
import type { Usage } from '../types'

export default defineCommand({
  meta: { name: 'usage', description: 'Show workspace storage statistics' },
  args: { ...globalArgs },
  async run({ args }) {
    const { api } = begin('usage', args)
    const usage = await api.request<Usage>('/v1/usage')
    if (args.json) return printJson(usage)
    const c = usage.canvases
    print(
      `canvases  ${c.total} (${c.permanent} permanent, ${c.temporary} temporary; ${c.public} public)`,
    )
    print(`versions  ${usage.versions}`)
    print(`files     ${usage.files}`)
    print(`content   ${humanSize(usage.bytes.content)} (stored ${humanSize(usage.bytes.stored)})`)
    print(`shares    ${usage.shares.active} active`)
  },
})
