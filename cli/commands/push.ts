import { statSync } from 'node:fs'
import { basename, resolve } from 'node:path'
import { defineCommand, type ParsedArgs } from 'citty'
import type { Api } from '../client'
import { CliError, usageError } from '../errors'
import { canvasId, renderer, text, title } from '../flags'
import { leftOutNote, readFolder } from '../folder'
import { publish } from '../publish'
import { publishedAs, remember } from '../published'
import { pushSite, type SitePush, type SiteState } from '../push-site'
import {
  begin,
  canvasJson,
  globalArgs,
  humanSize,
  note,
  print,
  printJson,
  type Session,
} from '../shared'
import type { HashCache, SiteUpload } from '../site-upload'
import type { Canvas } from '../types'
import { uploadFile } from '../upload'
import { watchChanges, watchFolder } from '../watch'
import { expiry } from '../when'

const args = {
  ...globalArgs,
  file: {
    type: 'positional',
    required: true,
    description:
      'The file to publish, or a folder: its files as a site (regular files; links only to files inside it)',
  },
  title: { type: 'string', description: 'Title (default: the file or folder name)' },
  save: {
    type: 'boolean',
    description:
      "Keep it permanently (else the workspace's default: 24 hours unless its admins chose otherwise)",
  },
  temporary: {
    type: 'boolean',
    description:
      "A new canvas expires after the server's temporary time even where the workspace keeps canvases",
  },
  id: { type: 'string', description: 'Replace the content of this canvas (a new version)' },
  new: {
    type: 'boolean',
    description: 'A new canvas, even when this path was published before (else a new version)',
  },
  public: { type: 'boolean', description: 'Make the canvas public' },
  renderer: { type: 'string', description: 'Renderer id (see svc renderers)' },
  main: {
    type: 'string',
    description:
      "A folder's main file, by its path in the folder (default: index.html, else the first file)",
  },
  all: {
    type: 'boolean',
    description: 'Include hidden files and folders (.git, .env…) and node_modules in a folder',
  },
  watch: {
    type: 'boolean',
    description:
      'Keep pushing a new version each time the file or folder changes, until interrupted',
  },
} as const

type PushArgs = ParsedArgs<typeof args>

// Errors of the key or the canvas, not of one attempt: watching on would only repeat them.
const FATAL = new Set(['unauthorized', 'forbidden', 'canvas_not_found', 'internal'])

export default defineCommand({
  meta: {
    name: 'push',
    description: 'Upload a file or a folder as a canvas (or a new version with --id)',
  },
  args,
  async run({ args }) {
    const session = begin('push', args)
    title(args.title)
    canvasId(args.id)
    text(args.main, 'main')
    const folder = isFolder(args.file)
    if (!folder && args.main !== undefined) throw usageError('--main goes with a folder')
    if (!folder && args.all) throw usageError('--all goes with a folder')
    await renderer(session.api, args.renderer)
    if (args.new && args.id) throw usageError('--new and --id: one or the other')
    if (args.save && args.temporary) throw usageError('--save and --temporary: one or the other')
    const target = targetOf(session, args)
    if (folder) return pushFolder(session, args, target)
    // Without a digest to compare with, an upload always happens: never null.
    let { canvas, sha256 } = (await target.push((id) => pushFile(session.api, args, id)))!
    report(session, args, canvas, true)
    if (!args.watch) return
    note(`watching ${args.file} for changes (Ctrl-C to stop)`)
    await watchChanges(args.file, async () => {
      // A save that changed nothing, or a file caught mid-rename, makes no version.
      const next = await pushFile(session.api, args, canvas.canvas_id, sha256).catch(
        notFatal(new Set([...FATAL, 'usage'])),
      )
      if (next === null) unchanged(args.file)
      if (!next) return
      ;({ canvas, sha256 } = next)
      report(session, args, canvas, false)
    })
  },
})

type Target = {
  /** Pushes onto the canvas named or remembered (one gone: a new canvas), and remembers it. */
  push: <T extends { canvas: Canvas } | null>(run: (id?: string) => Promise<T>) => Promise<T>
}

/**
 * Where a push goes: the canvas `--id` names; else, unless `--new`, the one this path was
 * published as before (said, since it changes no canvas but that one); else a new canvas.
 */
function targetOf(session: Session, args: PushArgs): Target {
  const endpoint = session.settings.endpoint
  const path = resolve(args.file)
  const before = args.id || args.new ? undefined : publishedAs(endpoint, path)
  if (before)
    note(`${args.file} was published as ${before}: a new version of it (--new: another canvas)`)
  return {
    async push(run) {
      let pushed
      try {
        pushed = await run(args.id ?? before)
      } catch (err) {
        if (!before || !(err instanceof CliError) || err.code !== 'canvas_not_found') throw err
        // Deleted since, expired, or of another workspace than this key's.
        note(`${before} is gone, or not in this key's workspace: a new canvas`)
        pushed = await run(undefined)
      }
      if (pushed) remember(endpoint, path, pushed.canvas.canvas_id)
      return pushed
    },
  }
}

/** A save seen that changed no byte: said, so that a person (or a script) knows it was seen. */
const unchanged = (path: string) => note(`${path}: no change in its content; no new version`)

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/**
 * Uploads the file and makes it a new canvas, or a new version of canvas `id`. With `unless`, the
 * digest of the version in place: the same bytes again make nothing (null).
 */
async function pushFile(api: Api, args: PushArgs, id?: string, unless?: string) {
  const file = await uploadFile(api, args.file, unless)
  if (!file) return null
  const content = { file_id: file.fileId, ext: file.ext }
  const canvas = await publish(api, args, id, content, basename(args.file))
  return { canvas, sha256: file.sha256 }
}

/** A folder as a site; with --watch, a new version each time its files change. */
async function pushFolder(session: Session, args: PushArgs, target: Target) {
  const options = { all: args.all }
  let folder = readFolder(args.file, options)
  let left = leftOutNote(folder)
  if (left) note(left)
  const cache: HashCache = new Map()
  // Without a version to compare with, a version is always made: never null.
  let pushed: SitePush = (await target.push((id) =>
    pushSite(session.api, folder, args, id, undefined, cache),
  ))!
  report(session, args, pushed.canvas, true, pushed.upload)
  if (!args.watch) return
  note(`watching ${args.file} for changes (Ctrl-C to stop)`)
  let state: SiteState = pushed.state
  const folders = () => folder.folders
  await watchFolder(
    folders,
    async () => {
      const next = await (async () => {
        folder = readFolder(args.file, options)
        const now = leftOutNote(folder)
        if (now && now !== left) note(now)
        left = now
        return pushSite(session.api, folder, args, pushed.canvas.canvas_id, state, cache)
      })().catch(notFatal(FATAL))
      if (next === null) unchanged(args.file)
      if (!next) return
      pushed = next
      state = next.state
      report(session, args, next.canvas, false, next.upload)
    },
    options,
  )
}

/**
 * In a watch, a failure the next change may not meet (a file changing mid-upload, the network, a
 * bad name about to be fixed) is reported and the watch goes on; one that every push would meet
 * ends it. A file gone since it was seen says nothing: its removal is a change of its own.
 */
function notFatal(fatal: Set<string>) {
  return (err: unknown): undefined => {
    const error = err instanceof CliError ? err : new CliError(String(err), 'io_error')
    if (fatal.has(error.code)) throw error
    if (error.code !== 'file_not_found') {
      note(`push failed: ${error.message} (${error.code}); waiting for the next change`)
    }
    return undefined
  }
}

/** With --json one document per version (a line each under --watch); else the canvas in brief. */
function report(
  { settings }: Session,
  args: PushArgs,
  canvas: Canvas,
  first: boolean,
  upload?: SiteUpload,
) {
  const json = canvasJson(settings, canvas)
  const files = upload && {
    files: upload.items.length,
    uploaded: upload.uploaded,
    already_there: upload.items.length - upload.uploaded,
    uploaded_bytes: upload.uploadedBytes,
  }
  if (args.json) {
    const body = files ? { ...json, upload: files } : json
    return printJson(body, { line: args.watch })
  }
  if (first) print(canvas.canvas_id)
  print(`version ${canvas.version} · ${expiry(canvas.expires_at)}`)
  if (files) {
    const sent = `${files.uploaded} uploaded (${humanSize(files.uploaded_bytes)})`
    print(`${files.files} files · ${sent} · ${files.already_there} already there`)
  }
  if (first) print(json.view_url)
}
