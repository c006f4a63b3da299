import { basename } from 'node:path'
import { defineCommand } from 'citty'
import { begin, canvasJson, globalArgs, print, printJson, viewUrl } from '../shared'
import type { Canvas } from '../types'
import { uploadFile } from '../upload'

export default defineCommand({
  meta: { name: 'push', description: 'Upload a file as a canvas (or a new version with --id)' },
  args: {
    ...globalArgs,
    file: { type: 'positional', required: true, description: 'The file to publish' },
    title: { type: 'string', description: 'Title (default: the file name)' },
    save: { type: 'boolean', description: 'Keep it permanently instead of 24 hours' },
    id: { type: 'string', description: 'Replace the content of this canvas (a new version)' },
    public: { type: 'boolean', description: 'Make the canvas public' },
    renderer: { type: 'string', description: 'Renderer id (see svc renderers)' },
  },
  async run({ args }) {
    const { api, settings } = begin('push', args)
    const file = await uploadFile(api, args.file)
    let canvas: Canvas
    if (args.id) {
      canvas = await api.request<Canvas>(`/v1/canvases/${encodeURIComponent(args.id)}`, {
        method: 'PATCH',
        json: {
          file_id: file.fileId,
          title: args.title,
          renderer_id: args.renderer,
          visibility: args.public ? 'public' : undefined,
        },
      })
      if (args.save && canvas.expires_at) {
        canvas = await api.request<Canvas>(`/v1/canvases/${canvas.canvas_id}/permanent`, {
          method: 'POST',
        })
      }
    } else {
      canvas = await api.request<Canvas>('/v1/canvases', {
        method: 'POST',
        json: {
          file_id: file.fileId,
          title: args.title ?? basename(args.file),
          ext: file.ext,
          renderer_id: args.renderer,
          permanent: Boolean(args.save),
        },
      })
      if (args.public) {
        canvas = await api.request<Canvas>(`/v1/canvases/${canvas.canvas_id}`, {
          method: 'PATCH',
          json: { visibility: 'public' },
        })
      }
    }
    const url = viewUrl(settings, canvas.canvas_id)
    if (args.json) return printJson(canvasJson(settings, canvas))
    print(canvas.canvas_id)
    print(
      `version ${canvas.version} · ${canvas.expires_at ? `expires ${canvas.expires_at}` : 'permanent'}`,
    )
    print(url)
  },
})
