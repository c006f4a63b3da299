import { defineCommand } from 'citty'
import { begin, globalArgs, print, printJson } from '../shared'

export default defineCommand({
  meta: { name: 'unshare', description: 'Revoke every share link of a canvas' },
  args: { ...globalArgs, id: { type: 'positional', required: true, description: 'Canvas id' } },
  async run({ args }) {
    const { api } = begin('unshare', args)
    const { revoked } = await api.request<{ revoked: number }>(
      `/v1/canvases/${encodeURIComponent(args.id)}/shares`,
      { method: 'DELETE' },
    )
    if (args.json) return printJson({ canvas_id: args.id, revoked })
    print(`revoked ${revoked} link${revoked === 1 ? '' : 's'}`)
  },
})
