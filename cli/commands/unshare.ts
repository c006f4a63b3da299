import { defineCommand } from 'citty'
import { usageError } from '../errors'
import { begin, globalArgs, print, printJson } from '../shared'

export default defineCommand({
  meta: { name: 'unshare', description: 'Revoke one share link of a canvas, or all of them' },
  args: {
    ...globalArgs,
    id: { type: 'positional', required: true, description: 'Canvas id' },
    token: { type: 'string', description: 'Revoke only this link (its token or its URL)' },
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
      revoked = (await api.request<{ revoked: number }>(path, { method: 'DELETE' })).revoked
    }
    if (args.json) return printJson({ canvas_id: args.id, revoked })
    print(`revoked ${revoked} link${revoked === 1 ? '' : 's'}`)
  },
})
