import { defineCommand } from 'citty'
import { CliError, usageError } from '../errors'
import { ask } from '../prompt'
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
    if (!args.yes) {
      // Nothing can bring a deleted canvas back: a script must say so, a person is asked.
      if (!process.stdin.isTTY) {
        throw usageError('refusing to delete without confirmation: give --yes')
      }
      const answer = await ask(`Delete canvas ${args.id} and all its versions? [y/N] `)
      if (!/^y(es)?$/i.test(answer)) throw new CliError('not deleted', 'cancelled')
    }
    await api.request(`/v1/canvases/${encodeURIComponent(args.id)}`, { method: 'DELETE' })
    if (args.json) return printJson({ canvas_id: args.id, deleted: true })
    print(`deleted ${args.id}`)
  },
})
