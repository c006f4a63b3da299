import { AppError } from '../lib/errors'
import { contentTypeFor, extFromName } from '../lib/content-types'
import type { Canvas } from '../schema/responses'
import { findContent, type ContentRef } from './canvas-reads'
import type { Visibility } from './canvas-rows'
import { createCanvas, makePermanent, updateCanvas } from './canvases'
import { storeDirect } from './files'
import type { Actor, Services } from './services'

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

/**
 * A stored file as a new canvas (titled `name` unless a title is given), or as a new version of
 * `canvasId` (renamed only if a title is given), then made permanent or public as asked.
 */
export async function publishFile(
  svc: Services,
  actor: Actor,
  file: { fileId: string; ext: string; name: string },
  options: Omit<PublishInput, 'bytes' | 'filename'>,
): Promise<Canvas> {
  if (options.canvasId) {
    const { title, visibility } = options
    let canvas = await updateCanvas(svc, actor, options.canvasId, {
      file_id: file.fileId,
      title,
      visibility,
    })
    if (options.permanent && canvas.expires_at) {
      canvas = await makePermanent(svc, actor, canvas.canvas_id)
    }
    return canvas
  }
  const canvas = await createCanvas(svc, actor, {
    file_id: file.fileId,
    title: options.title ?? file.name,
    ext: file.ext,
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
): Promise<Read> {
  const content = await findContent(svc, actor, canvasId, version)
  const object = await svc.bucket.get(content.blobKey)
  if (!object) throw new AppError('version_not_found', 'the content of this version is gone')
  if (object.size > MAX_READ_BYTES) {
    await object.body.cancel()
    return { kind: 'too_large', content, size: object.size }
  }
  const bytes = new Uint8Array(await object.arrayBuffer())
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)
    if (!text.includes('\0')) return { kind: 'text', content, text }
  } catch {
    // Not UTF-8: binary.
  }
  return { kind: 'binary', content, size: object.size }
}
