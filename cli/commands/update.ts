import { defineCommand } from 'citty'
import { CliError } from '../errors'
import { begin, canvasJson, globalArgs, print, printJson } from '../shared'
import type { Canvas } from '../types'

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
    if (!args.title && !args.visibility && !args.renderer) {
      throw new CliError('nothing to update: give --title, --visibility or --renderer', 'usage')
    }
    const canvas = await api.request<Canvas>(`/v1/canvases/${encodeURIComponent(args.id)}`, {
      method: 'PATCH',
      json: { title: args.title, visibility: args.visibility, renderer_id: args.renderer },
    })
    if (args.json) return printJson(canvasJson(settings, canvas))
    print(`${canvas.canvas_id} · ${canvas.title} · ${canvas.visibility} · ${canvas.renderer_id}`)
  },
})
