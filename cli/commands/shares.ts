import { defineCommand } from 'citty'
import { begin, dim, globalArgs, print, printJson, shareJson, table } from '../shared'
import type { Canvas, Share } from '../types'
import { relative } from '../when'

export default defineCommand({
  meta: { name: 'shares', description: 'List the share links of a canvas' },
  args: { ...globalArgs, id: { type: 'positional', required: true, description: 'Canvas id' } },
  async run({ args }) {
    const { api, settings } = begin('shares', args)
    const id = encodeURIComponent(args.id)
    const { shares } = await api.request<{ shares: Share[] }>(`/v1/canvases/${id}/shares`)
    if (args.json) return printJson({ shares: shares.map((s) => shareJson(settings, s)) })
    if (shares.length === 0) return print(dim('no share links'))
    // A link ends with its temporary canvas at the latest (the service answers the earlier of
    // the two): said when it is the canvas's end.
    const canvas = await api.request<Canvas>(`/v1/canvases/${id}`)
    const ends = (expiresAt: string | null) => {
      if (!expiresAt) return 'never'
      const when = relative(expiresAt)
      return expiresAt === canvas.expires_at ? `${when} (canvas)` : when
    }
    const rows = shares.map((s) => {
      const link = shareJson(settings, s)
      return [
        link.url,
        ends(s.expires_at),
        String(s.view_count),
        s.max_views === null ? '-' : String(s.max_views),
        s.version === null ? 'latest' : String(s.version),
        s.has_password ? 'yes' : 'no',
        s.allow_comments ? 'yes' : 'no',
      ]
    })
    print(table(['URL', 'EXPIRES', 'VIEWS', 'MAX VIEWS', 'VERSION', 'PASSWORD', 'COMMENTS'], rows))
  },
})
