import { basename } from 'node:path'
import { defineCommand, type ParsedArgs } from 'citty'
import type { Api } from '../client'
import { CliError } from '../errors'
import { begin, canvasJson, globalArgs, print, printJson, type Session } from '../shared'
import type { Canvas, CreateCanvasRequest } from '../types'
import { uploadFile } from '../upload'
import { watchChanges } from '../watch'

const args = {
  ...globalArgs,
  file: { type: 'positional', required: true, description: 'The file to publish' },
  title: { type: 'string', description: 'Title (default: the file name)' },
  save: { type: 'boolean', description: 'Keep it permanently instead of 24 hours' },
  id: { type: 'string', description: 'Replace the content of this canvas (a new version)' },
  public: { type: 'boolean', description: 'Make the canvas public' },
  renderer: { type: 'string', description: 'Renderer id (see svc renderers)' },
  watch: {
    type: 'boolean',
    description: 'Keep pushing a new version each time the file changes, until interrupted',
  },
} as const

type PushArgs = ParsedArgs<typeof args>

// Errors of the key or the canvas, not of one attempt: watching on would only repeat them.
const FATAL = new Set(['unauthorized', 'forbidden', 'canvas_not_found', 'usage', 'internal'])

export default defineCommand({
  meta: { name: 'push', description: 'Upload a file as a canvas (or a new version with --id)' },
  args,
  async run({ args }) {
    const session = begin('push', args)
    // Without a digest to compare with, an upload always happens: never null.
    let { canvas, sha256 } = (await push(session.api, args, args.id))!
    report(session, args, canvas, true)
    if (!args.watch) return
    process.stderr.write(`watching ${args.file} for changes (Ctrl-C to stop)\n`)
    await watchChanges(args.file, async () => {
      // A save that changed nothing, or a file caught mid-rename, makes no version. A failure the
      // next save may not meet (the file changing mid-upload, the network) is reported and the
      // watch goes on; one that every push would meet ends it.
      const next = await push(session.api, args, canvas.canvas_id, sha256).catch((err) => {
        const error = err instanceof CliError ? err : new CliError(String(err), 'io_error')
        if (FATAL.has(error.code)) throw error
        if (error.code !== 'file_not_found') {
          process.stderr.write(
            `push failed: ${error.message} (${error.code}); waiting for the next change\n`,
          )
        }
        return null
      })
      if (!next) return
      ;({ canvas, sha256 } = next)
      report(session, args, canvas, false)
    })
  },
})

/**
 * Uploads the file and makes it a new canvas, or a new version of canvas `id`. With `unless`, the
 * digest of the version in place: the same bytes again make nothing (null).
 */
async function push(api: Api, args: PushArgs, id?: string, unless?: string) {
  const file = await uploadFile(api, args.file, unless)
  if (!file) return null
  let canvas: Canvas
  if (id) {
    canvas = await api.request<Canvas>(`/v1/canvases/${encodeURIComponent(id)}`, {
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
      } satisfies CreateCanvasRequest,
    })
    if (args.public) {
      canvas = await api.request<Canvas>(`/v1/canvases/${canvas.canvas_id}`, {
        method: 'PATCH',
        json: { visibility: 'public' },
      })
    }
  }
  return { canvas, sha256: file.sha256 }
}

/** With --json one document per version (a line each under --watch); else the canvas in brief. */
function report({ settings }: Session, args: PushArgs, canvas: Canvas, first: boolean) {
  const json = canvasJson(settings, canvas)
  if (args.json) return args.watch ? print(JSON.stringify(json)) : printJson(json)
  const expiry = canvas.expires_at ? `expires ${canvas.expires_at}` : 'permanent'
  if (first) print(canvas.canvas_id)
  print(`version ${canvas.version} · ${expiry}`)
  if (first) print(json.view_url)
}
