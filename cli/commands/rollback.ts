import { defineCommand } from 'citty'
import { positiveInt } from '../flags'
import { begin, canvasJson, globalArgs, print, printJson } from '../shared'
import type { Api } from '../client'
import type { Canvas, VersionItemList } from '../types'

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
    const updated = await bringBack(api, id, wanted)
    if (args.json) return printJson(canvasJson(settings, updated))
    print(
      `${updated.canvas_id} is now version ${updated.version} (the content of version ${wanted})`,
    )
  },
})

/**
 * The files of the old version by path (one for a single file), sent again as the new version's
 * items: the workspace still holds every one, so nothing is uploaded and it takes two requests.
 */
async function bringBack(api: Api, id: string, version: number) {
  const old = await api.request<VersionItemList>(`/v1/canvases/${id}/versions/${version}/items`)
  return api.request<Canvas>(`/v1/canvases/${id}`, {
    method: 'PATCH',
    json: { items: old.items.map((i) => ({ path: i.path, file_id: i.file_id })), main: old.main },
  })
}
