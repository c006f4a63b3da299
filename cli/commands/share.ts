import { defineCommand } from 'citty'
import { begin, globalArgs, positiveInt, print, shareUrl } from '../shared'
import type { Share } from '../types'

export default defineCommand({
  meta: { name: 'share', description: 'Create a public share link' },
  args: {
    ...globalArgs,
    id: { type: 'positional', required: true, description: 'Canvas id' },
    expires: { type: 'string', description: 'Lifetime such as 30m, 24h, 7d (default: never)' },
    password: { type: 'string', description: 'Require this password to open the link' },
    'max-views': { type: 'string', description: 'Stop after this many views' },
    version: { type: 'string', description: 'Pin the link to this version' },
  },
  async run({ args }) {
    const { api, settings } = begin('share', args)
    const link = await api.request<Share>(`/v1/canvases/${encodeURIComponent(args.id)}/shares`, {
      method: 'POST',
      json: {
        expires_in: args.expires,
        password: args.password,
        max_views: positiveInt(args['max-views'], 'max-views'),
        version: positiveInt(args.version, 'version'),
      },
    })
    print(shareUrl(settings, link.token))
    const details = [
      link.expires_at ? `expires ${link.expires_at}` : 'never expires',
      link.max_views ? `at most ${link.max_views} views` : null,
      link.version ? `pinned to version ${link.version}` : null,
      link.has_password ? 'password protected' : null,
    ].filter(Boolean)
    process.stderr.write(details.join(' · ') + '\n')
  },
})
