import { defineCommand } from 'citty'
import { confirm } from '../prompt'
import { begin, globalArgs, print, printJson } from '../shared'

export default defineCommand({
  meta: { name: 'delete', description: 'Delete a canvas and all its versions' },
  args: {
    ...globalArgs,
    id: { type: 'positional', required: true, description: 'Canvas id' },
    yes: { type: 'boolean', alias: 'y', description: 'Delete without asking' },
  },
  async run({ args }) {
    const { api } = begin('delete', args)
    // Nothing can bring a deleted canvas back: a script must say so, a person is asked.
    if (!args.yes) {
      await confirm(`Delete canvas ${args.id} and all its versions?`, 'delete', 'not deleted')
    }
    await api.request(`/v1/canvases/${encodeURIComponent(args.id)}`, { method: 'DELETE' })
    if (args.json) return printJson({ canvas_id: args.id, deleted: true })
    print(`deleted ${args.id}`)
  },
})
