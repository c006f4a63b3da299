import { defineCommand } from 'citty'
import { positiveInt } from '../flags'
import { begin, globalArgs, print, printJson } from '../shared'
import type { Readership } from '../types'
import { readershipLines } from '../views'

// `svc views <id>`: who read a canvas (docs/readership.md).

/** The longest period the service counts over, in days. */
const MAX_DAYS = 90

export default defineCommand({
  meta: { name: 'views', description: 'Who read a canvas: views by day, version, link and member' },
  args: {
    ...globalArgs,
    id: { type: 'positional', required: true, description: 'Canvas id' },
    days: {
      type: 'string',
      description: `Days back, today among them (default 30, at most ${MAX_DAYS})`,
    },
  },
  async run({ args }) {
    const { api } = begin('views', args)
    const days = positiveInt(args.days, 'days', MAX_DAYS)
    const views = await api.request<Readership>(
      `/v1/canvases/${encodeURIComponent(args.id)}/views${days ? `?days=${days}` : ''}`,
    )
    if (args.json) return printJson(views)
    print(readershipLines(views, Date.now()))
  },
})
