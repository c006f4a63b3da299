import { AppError } from '../../lib/errors'
import { contentTypeFor, extFromName } from '../../lib/content-types'
import type { Canvas } from '../../schema/responses'
import { findContent, type ContentRef } from './reads'
import type { Visibility } from './rows'
import { createCanvas, makePermanent, updateCanvas } from './canvases'
import { storeDirect } from '../files'
import { findItem } from './site-reads'
import { pathExt, planContent, type ContentInput, type Item } from './site-items'
import type { Services } from '../services'
import type { Actor } from '../actor'

// Publishing and reading back in one step each, for callers that hold the content itself rather
// than going through the upload flow (agents over MCP). Built from the same operations as the API.

export type PublishInput = {
  bytes: Uint8Array
  filename: string
  title?: string
  /** A new version of this canvas rather than a new canvas. */
  canvasId?: string
  permanent?: boolean
  visibility?: Visibility
}

export async function publish(svc: Services, actor: Actor, input: PublishInput): Promise<Canvas> {
  const limit = svc.settings.maxDirectUploadBytes
  if (input.bytes.byteLength > limit) {
    throw new AppError(
      'payload_too_large',
      `content is over the limit of ${limit} bytes for a direct upload; use the presigned flow`,
    )
  }
  const ext = extFromName(input.filename, input.bytes.slice(0, 4096).buffer)
  const bytes = input.bytes.slice().buffer
  const file = await storeDirect(svc, actor, bytes, contentTypeFor(ext))
  return publishFile(svc, actor, { fileId: file.file_id, ext, name: input.filename }, input)
}

/** One file of a site, by its path in the site. */
export type SiteFile = { path: string; bytes: Uint8Array }

/**
 * The files a publish of a site may carry: each is stored by the Worker itself (a storage write
 * and a D1 batch), and a Worker's request has a budget of subrequests. A larger site: `svc push`.
 */
export const MAX_PUBLISH_FILES = 200

/** Several files as one canvas (a site), or as a new version of `canvasId`. */
export async function publishSite(
  svc: Services,
  actor: Actor,
  input: Omit<PublishInput, 'bytes' | 'filename'> & { files: SiteFile[]; main?: string },
): Promise<Canvas> {
  const { files, main, ...options } = input
  const limit = Math.min(svc.settings.maxSiteItems, MAX_PUBLISH_FILES)
  if (files.length > limit) {
    throw new AppError(
      'invalid_request',
      `files: at most ${limit} files in one publish, got ${files.length}; publish a larger site with svc push`,
    )
  }
  const total = files.reduce((sum, f) => sum + f.bytes.byteLength, 0)
  if (total > svc.settings.maxDirectUploadBytes) {
    throw new AppError(
      'payload_too_large',
      `files: ${total} bytes in all, over the limit of ${svc.settings.maxDirectUploadBytes} for one publish`,
    )
  }
  // The list's own rules (paths, main) are checked before anything is stored.
  const plan = planContent(
    { items: files.map((f) => ({ path: f.path, file_id: 'unstored' })), main },
    svc.settings.maxSiteItems,
  )!
  const items: Item[] = []
  for (let at = 0; at < files.length; at += STORE_AT_ONCE) {
    const stored = await Promise.all(
      files.slice(at, at + STORE_AT_ONCE).map(async (f) => {
        const type = contentTypeFor(pathExt(f.path) ?? '')
        const file = await storeDirect(svc, actor, f.bytes.slice().buffer, type)
        return { path: f.path, file_id: file.file_id }
      }),
    )
    items.push(...stored)
  }
  const content = { items, main: plan.main! }
  return publishContent(svc, actor, content, plan.main!, options)
}

// Files stored side by side by a publish of a site.
const STORE_AT_ONCE = 6

/**
 * A stored file as a new canvas (titled `name` unless a title is given), or as a new version of
 * `canvasId` (renamed only if a title is given), then made permanent or public as asked.
 */
export function publishFile(
  svc: Services,
  actor: Actor,
  file: { fileId: string; ext: string; name: string },
  options: Omit<PublishInput, 'bytes' | 'filename'>,
): Promise<Canvas> {
  return publishContent(svc, actor, { file_id: file.fileId, ext: file.ext }, file.name, options)
}

/**
 * Files uploaded and finalized already, by path, as a site: a new canvas titled `name`, or a new
 * version of `canvasId`. The list's rules (paths, count, main) are the API's (createCanvas).
 */
export function publishItems(
  svc: Services,
  actor: Actor,
  site: { items: Item[]; main?: string; name: string },
  options: Omit<PublishInput, 'bytes' | 'filename'>,
): Promise<Canvas> {
  return publishContent(svc, actor, { items: site.items, main: site.main }, site.name, options)
}

async function publishContent(
  svc: Services,
  actor: Actor,
  content: ContentInput & { ext?: string },
  name: string,
  options: Omit<PublishInput, 'bytes' | 'filename'>,
): Promise<Canvas> {
  if (options.canvasId) {
    const { title, visibility } = options
    let canvas = await updateCanvas(svc, actor, options.canvasId, {
      ...content,
      title,
      visibility,
    })
    if (options.permanent && canvas.expires_at) {
      canvas = await makePermanent(svc, actor, canvas.canvas_id)
    }
    return canvas
  }
  const canvas = await createCanvas(svc, actor, {
    ...content,
    title: options.title ?? name,
    permanent: options.permanent,
  })
  if (options.visibility !== 'public') return canvas
  return updateCanvas(svc, actor, canvas.canvas_id, { visibility: 'public' })
}

/** Text up to this size is handed back whole; larger content is offered as a download. */
export const MAX_READ_BYTES = 1024 * 1024

export type Read =
  | { kind: 'text'; content: ContentRef; text: string }
  | { kind: 'binary' | 'too_large'; content: ContentRef; size: number }

/** A version's content as text when it is UTF-8 text of a readable size. */
export async function readContent(
  svc: Services,
  actor: Actor,
  canvasId: string,
  version?: number,
  path?: string,
): Promise<Read> {
  const content =
    path === undefined
      ? await findContent(svc, actor, canvasId, version)
      : await findItem(svc, actor, canvasId, path, version)
  return { ...(await readStoredText(svc, content.blobKey)), content }
}

export type StoredText =
  { kind: 'text'; text: string } | { kind: 'binary' | 'too_large'; size: number }

/**
 * A stored object as text when it is UTF-8 text of at most `limit` bytes; otherwise why not.
 * `keepBom`: a byte order mark stays in the text (as U+FEFF), so that the text encodes back to
 * the very bytes it came from.
 */
export async function readStoredText(
  svc: Services,
  blobKey: string,
  { limit = MAX_READ_BYTES, keepBom = false } = {},
): Promise<StoredText> {
  const object = await svc.bucket.get(blobKey)
  if (!object) throw new AppError('version_not_found', 'the content of this version is gone')
  if (object.size > limit) {
    await object.body.cancel()
    return { kind: 'too_large', size: object.size }
  }
  const bytes = new Uint8Array(await object.arrayBuffer())
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: keepBom }).decode(bytes)
    if (!text.includes('\0')) return { kind: 'text', text }
  } catch {
    // Not UTF-8: binary.
  }
  return { kind: 'binary', size: object.size }
}
