import { defineCommand } from 'citty'
import { begin, globalArgs, print, printJson, table } from '../shared'
import type { Renderer } from '../types'

export default defineCommand({
  meta: { name: 'renderers', description: 'List the renderers a canvas can use (push --renderer)' },
  args: { ...globalArgs },
  async run({ args }) {
    const { api } = begin('renderers', args)
    const body = await api.request<{ renderers: Renderer[] }>('/v1/renderers')
    if (args.json) return printJson(body)
    const rows = body.renderers.map((r) => [
      r.renderer_id,
      r.name,
      r.exts.join(' ') || '-',
      r.scripts ? 'yes' : 'no',
    ])
    print(table(['ID', 'NAME', 'EXTENSIONS', 'SCRIPTS'], rows))
  },
})
