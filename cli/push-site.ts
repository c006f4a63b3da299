import { sep } from 'node:path'
import type { Api } from './client'
import { usageError } from './errors'
import type { Folder } from './folder'
import { closest } from './help'
import { publish, type PublishOptions } from './publish'
import { uploadSite, type HashCache, type SiteItem, type SiteUpload } from './site-upload'
import type { Canvas, CanvasDetail } from './types'

// `svc push <folder>`: the folder's files as a site, the new version of an existing canvas
// uploading only what that version does not hold already.

export type SiteOptions = PublishOptions & { main?: string }

/** What a version this process pushed holds: its files need no request when pushed again. */
export type SiteState = { items: SiteItem[]; main?: string }

export type SitePush = { canvas: Canvas; state: SiteState; upload: SiteUpload }

/**
 * Uploads what the workspace lacks and makes the canvas, or a new version of canvas `id`. `last`:
 * the version pushed before by this process (a watch); the same files again make nothing (null).
 */
export async function pushSite(
  api: Api,
  folder: Folder,
  options: SiteOptions,
  id?: string,
  last?: SiteState,
  cache?: HashCache,
): Promise<SitePush | null> {
  const paths = folder.files.map((f) => f.path)
  const chosen = options.main === undefined ? undefined : mainPath(options.main, paths, folder)
  let known = new Map<string, string>()
  let previousMain = last?.main
  if (last) {
    known = new Map(last.items.map((item) => [item.sha256, item.file_id]))
  } else if (id) {
    const canvas = await api.request<CanvasDetail>(`/v1/canvases/${encodeURIComponent(id)}`)
    known = knownFiles(canvas)
    previousMain = canvas.main
  }
  // A main file chosen before stays the main file while it is there.
  const main = chosen ?? (previousMain && paths.includes(previousMain) ? previousMain : undefined)
  const upload = await uploadSite(api, folder.files, known, cache)
  const state = { items: upload.items, main }
  if (last && sameSite(last, state)) return null
  const items = upload.items.map(({ path, file_id }) => ({ path, file_id }))
  const canvas = await publish(api, options, id, { items, main }, folder.name || 'site')
  return { canvas, state, upload }
}

/** The files of the canvas's version in place, by digest: a site's items, or its one file. */
function knownFiles(canvas: CanvasDetail): Map<string, string> {
  const files = canvas.items ?? [canvas.file]
  return new Map(files.map((file) => [file.sha256, file.file_id]))
}

/** `--main` as a path of the folder: `./` and the system's separators are taken as meant. */
function mainPath(given: string, paths: string[], folder: Folder): string {
  const path = given
    .split(sep)
    .join('/')
    .replace(/^(\.\/)+/, '')
  if (paths.includes(path)) return path
  const meant = closest(path, paths)
  throw usageError(
    `--main: '${given}' is not a file in ${folder.root}${meant ? `: did you mean '${meant}'?` : ''}`,
  )
}

function sameSite(a: SiteState, b: SiteState): boolean {
  return (
    a.main === b.main &&
    a.items.length === b.items.length &&
    a.items.every((item, i) => item.path === b.items[i].path && item.sha256 === b.items[i].sha256)
  )
}
