import { defineCommand } from 'citty'
import { begin, globalArgs, print, printJson } from '../shared'

export default defineCommand({
  meta: { name: 'delete', description: 'Delete a canvas and all its versions' },
  args: { ...globalArgs, id: { type: 'positional', required: true, description: 'Canvas id' } },
  async run({ args }) {
    const { api } = begin('delete', args)
    await api.request(`/v1/canvases/${encodeURIComponent(args.id)}`, { method: 'DELETE' })
    if (args.json) return printJson({ canvas_id: args.id, deleted: true })
    print(`deleted ${args.id}`)
  },
})
