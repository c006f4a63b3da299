import { defineCommand } from 'citty'
import { contentTypeFor } from '../../src/lib/content-types'
import { CliError } from '../errors'
import { begin, canvasJson, globalArgs, positiveInt, print, printJson } from '../shared'
import type { Canvas, Version } from '../types'

export default defineCommand({
  meta: {
    name: 'rollback',
    description: 'Make a new version whose content is that of an older one',
  },
  args: {
    ...globalArgs,
    id: { type: 'positional', required: true, description: 'Canvas id' },
    version: { type: 'positional', required: true, description: 'The version to bring back' },
  },
  async run({ args }) {
    const { api, settings } = begin('rollback', args)
    const wanted = positiveInt(args.version, 'version')!
    const id = encodeURIComponent(args.id)
    const canvas = await api.request<Canvas>(`/v1/canvases/${id}`)
    const { versions } = await api.request<{ versions: Version[] }>(`/v1/canvases/${id}/versions`)
    const old = versions.find((v) => v.version === wanted)
    if (!old) throw new CliError(`canvas has no version ${wanted}`, 'version_not_found')
    // The workspace still holds those bytes: presign answers `exists` and nothing is uploaded.
    const meta = {
      sha256: old.sha256,
      ext: canvas.ext,
      size: old.size,
      mime: contentTypeFor(canvas.ext),
    }
    await api.request('/v1/upload/presign', { method: 'POST', json: meta })
    const fin = await api.request<{ file: { file_id: string } }>('/v1/upload/finalize', {
      method: 'POST',
      json: meta,
    })
    const updated = await api.request<Canvas>(`/v1/canvases/${id}`, {
      method: 'PATCH',
      json: { file_id: fin.file.file_id },
    })
    if (args.json) return printJson(canvasJson(settings, updated))
    print(
      `${updated.canvas_id} is now version ${updated.version} (the content of version ${wanted})`,
    )
  },
})
