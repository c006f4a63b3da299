import { plural } from '../../src/lib/format'
import { defineCommand } from 'citty'
import { begin, globalArgs, note, print, printJson, shareJson, shareUrl } from '../shared'
import type { Api } from '../client'
import { duration, MAX_VIEWS, positiveInt, sharePassword } from '../flags'
import type { Canvas, CreateShareRequest, Share } from '../types'
import { expiry } from '../when'
import { usageError } from '../errors'

export default defineCommand({
  meta: { name: 'share', description: 'Create a public share link' },
  args: {
    ...globalArgs,
    id: { type: 'positional', required: true, description: 'Canvas id' },
    expires: {
      type: 'string',
      description: 'Lifetime such as 30m, 24h, 7d (default: as long as the canvas)',
    },
    password: { type: 'string', description: 'Require this password to open the link' },
    'max-views': { type: 'string', description: 'Stop after this many views' },
    version: { type: 'string', description: 'Pin the link to this version' },
    comments: {
      type: 'boolean',
      description: 'Let its readers read and add comments (svc comments shows them)',
    },
    approved: {
      type: 'boolean',
      description: 'Show the approved version only, moving when one is approved (svc review)',
    },
  },
  async run({ args }) {
    const { api, settings } = begin('share', args)
    const options = {
      expires_in: duration(args.expires, 'expires'),
      password: sharePassword(args.password),
      max_views: positiveInt(args['max-views'], 'max-views', MAX_VIEWS),
      version: positiveInt(args.version, 'version'),
      allow_comments: args.comments || undefined,
      follow: args.approved ? ('approved' as const) : undefined,
    } satisfies CreateShareRequest
    if (args.approved && options.version !== undefined) {
      throw usageError('--approved and --version: a link shows the approved version or one version')
    }
    const link = await api.request<Share>(`/v1/canvases/${encodeURIComponent(args.id)}/shares`, {
      method: 'POST',
      json: options,
    })
    if (args.json) return printJson(shareJson(settings, link))
    print(shareUrl(settings, link.token))
    const details = [
      await linkExpiry(api, link),
      link.max_views ? `at most ${plural(link.max_views, 'view')}` : null,
      link.version ? `pinned to version ${link.version}` : null,
      link.follow === 'approved' ? 'shows the approved version' : null,
      link.has_password ? 'password protected' : null,
      link.allow_comments ? 'open to comments' : null,
    ].filter(Boolean)
    note(details.join(' · '))
  },
})

/**
 * When the link stops opening, as the service answers it: the earlier of its own expiry and its
 * canvas's while the canvas is temporary. Said so when it is the canvas's.
 */
async function linkExpiry(api: Api, link: Share): Promise<string> {
  if (!link.expires_at) return expiry(null)
  // The link is made: a canvas that cannot be read now only leaves this line plainer.
  const canvas = await api
    .request<Canvas>(`/v1/canvases/${encodeURIComponent(link.canvas_id)}`)
    .catch(() => null)
  return canvas?.expires_at === link.expires_at
    ? `${expiry(link.expires_at, ' with the canvas')} (svc save ${canvas.canvas_id} lets it live as asked)`
    : expiry(link.expires_at)
}
