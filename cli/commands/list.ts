import { defineCommand } from 'citty'
import { begin, canvasJson, dim, globalArgs, humanSize, print, printJson, table } from '../shared'
import type { Canvas } from '../types'
import { cursor, fileType, MAX_LIMIT, positiveInt } from '../flags'
import { relative } from '../when'

export default defineCommand({
  meta: { name: 'list', description: 'List the canvases of your workspace' },
  args: {
    ...globalArgs,
    type: { type: 'string', description: 'Only this file type (extension), e.g. html' },
    author: { type: 'string', description: 'Only what this member published: me, or their email' },
    limit: { type: 'string', description: 'How many (1-100)', default: '20' },
    cursor: { type: 'string', description: 'The page after the one that printed this cursor' },
  },
  async run({ args }) {
    const { api, settings } = begin('list', args)
    const limit = positiveInt(args.limit, 'limit', MAX_LIMIT)
    const ext = fileType(args.type)
    const after = cursor(args.cursor)
    const body = await api.request<{
      canvases: Canvas[]
      limit: number
      offset: number
      next_cursor: string | null
    }>('/v1/canvases', { query: { limit, ext, cursor: after, author: args.author } })
    if (args.json) {
      return printJson({ ...body, canvases: body.canvases.map((c) => canvasJson(settings, c)) })
    }
    if (body.canvases.length === 0) return print(dim('no canvases'))
    const rows = body.canvases.map((c) => [
      c.canvas_id,
      c.title.length > 40 ? c.title.slice(0, 39) + '…' : c.title,
      // A deployment from before authors names none.
      c.author?.name ?? '',
      c.ext,
      `v${c.version}`,
      humanSize(c.size),
      c.visibility,
      c.expires_at ? relative(c.expires_at) : 'never',
    ])
    print(table(['ID', 'TITLE', 'AUTHOR', 'TYPE', 'VERSION', 'SIZE', 'VISIBILITY', 'EXPIRY'], rows))
    if (body.next_cursor) print(dim(`more: svc list --cursor ${body.next_cursor}`))
  },
})
