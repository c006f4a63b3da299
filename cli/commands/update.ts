import { defineCommand } from 'citty'
import { usageError } from '../errors'
import { renderer, title, visibility } from '../flags'
import { begin, canvasJson, globalArgs, print, printJson } from '../shared'
import type { Canvas, UpdateCanvasRequest } from '../types'

export default defineCommand({
  meta: { name: 'update', description: 'Change the title, visibility or renderer of a canvas' },
  args: {
    ...globalArgs,
    id: { type: 'positional', required: true, description: 'Canvas id' },
    title: { type: 'string', description: 'New title' },
    visibility: { type: 'string', description: 'Private or public' },
    renderer: { type: 'string', description: 'Renderer id' },
  },
  async run({ args }) {
    const { api, settings } = begin('update', args)
    if (args.title === undefined && args.visibility === undefined && args.renderer === undefined) {
      throw usageError('nothing to update: give --title, --visibility or --renderer')
    }
    const change = {
      title: title(args.title),
      visibility: visibility(args.visibility),
      renderer_id: await renderer(api, args.renderer),
    } satisfies UpdateCanvasRequest
    const canvas = await api.request<Canvas>(`/v1/canvases/${encodeURIComponent(args.id)}`, {
      method: 'PATCH',
      json: change,
    })
    if (args.json) return printJson(canvasJson(settings, canvas))
    print(`${canvas.canvas_id} · ${canvas.title} · ${canvas.visibility} · ${canvas.renderer_id}`)
  },
})
