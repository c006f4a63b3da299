import { defineCommand } from 'citty'
import { begin, globalArgs, print } from '../shared'

export default defineCommand({
  meta: { name: 'delete', description: 'Delete a canvas and all its versions' },
  args: { ...globalArgs, id: { type: 'positional', required: true, description: 'Canvas id' } },
  async run({ args }) {
    const { api } = begin('delete', args)
    await api.request(`/v1/canvases/${encodeURIComponent(args.id)}`, { method: 'DELETE' })
    print(`deleted ${args.id}`)
  },
})
