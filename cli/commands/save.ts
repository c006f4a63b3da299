import { defineCommand } from 'citty'
import { begin, canvasJson, globalArgs, print, printJson } from '../shared'
import type { Canvas } from '../types'

export default defineCommand({
  meta: { name: 'save', description: 'Make a canvas permanent (no expiry)' },
  args: { ...globalArgs, id: { type: 'positional', required: true, description: 'Canvas id' } },
  async run({ args }) {
    const { api, settings } = begin('save', args)
    const canvas = await api.request<Canvas>(
      `/v1/canvases/${encodeURIComponent(args.id)}/permanent`,
      { method: 'POST' },
    )
    if (args.json) return printJson(canvasJson(settings, canvas))
    print(`${canvas.canvas_id} is permanent`)
  },
})
