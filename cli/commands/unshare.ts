import { defineCommand } from 'citty'
import { usageError } from '../errors'
import { confirm } from '../prompt'
import { begin, globalArgs, print, printJson } from '../shared'

export default defineCommand({
  meta: { name: 'unshare', description: 'Revoke one share link of a canvas, or all of them' },
  args: {
    ...globalArgs,
    id: { type: 'positional', required: true, description: 'Canvas id' },
    token: { type: 'string', description: 'Revoke only this link (its token or its URL)' },
    yes: { type: 'boolean', alias: 'y', description: 'Revoke every link without asking' },
  },
  async run({ args }) {
    const { api } = begin('unshare', args)
    const path = `/v1/canvases/${encodeURIComponent(args.id)}/shares`
    let revoked: number
    if (args.token !== undefined) {
      const token = /(?:^|\/s\/)([A-Za-z0-9_-]{8,64})\/?$/.exec(args.token)?.[1]
      if (!token) throw usageError(`--token must be a share token or link, got '${args.token}'`)
      await api.request(`${path}/${encodeURIComponent(token)}`, { method: 'DELETE' })
      revoked = 1
    } else {
      // Every link at once, and none can be brought back: asked as delete asks. One link named by
      // its token is a choice already made.
      if (!args.yes) {
        await confirm(
          `Revoke every share link of canvas ${args.id}?`,
          'revoke every link',
          'nothing revoked',
        )
      }
      revoked = (await api.request<{ revoked: number }>(path, { method: 'DELETE' })).revoked
    }
    if (args.json) return printJson({ canvas_id: args.id, revoked })
    print(`revoked ${revoked} link${revoked === 1 ? '' : 's'}`)
  },
})
