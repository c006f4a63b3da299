import { defineCommand } from 'citty'
import { begin, globalArgs, humanSize, print, printJson, table } from '../shared'
import type { Version } from '../types'
import { ago } from '../when'

export default defineCommand({
  meta: { name: 'versions', description: 'List the versions of a canvas, newest first' },
  args: {
    ...globalArgs,
    id: { type: 'positional', required: true, description: 'Canvas id' },
  },
  async run({ args }) {
    const { api } = begin('versions', args)
    const body = await api.request<{ versions: Version[] }>(
      `/v1/canvases/${encodeURIComponent(args.id)}/versions`,
    )
    if (args.json) return printJson(body)
    const rows = body.versions.map((v) => [
      String(v.version),
      humanSize(v.size),
      ago(v.created_at),
      v.sha256.slice(0, 12),
    ])
    print(table(['VERSION', 'SIZE', 'CREATED', 'SHA256'], rows))
  },
})
