import { closeSync, openSync, readSync, statSync } from 'node:fs'
import { basename, extname } from 'node:path'
import { contentTypeFor } from '../src/lib/content-types'
import type { Api } from './client'
import { CliError } from './errors'
import type { Progress } from './progress'
import { hashFile, putFile } from './transfer'
import type { Finalized, Presign, UploadRequest } from './types'

export type Uploaded = {
  fileId: string
  ext: string
  size: number
  sha256: string
  uploaded: boolean
}

/** What presign and finalize are told of a file: its digest, type and size. */
export type Described = UploadRequest & { path: string }

/**
 * presign → PUT (skipped when the workspace has the bytes already) → finalize. `unless`: a digest
 * the caller already has; the same bytes again upload nothing and give null.
 */
export async function uploadFile(api: Api, path: string): Promise<Uploaded>
export async function uploadFile(api: Api, path: string, unless?: string): Promise<Uploaded | null>
export async function uploadFile(api: Api, path: string, unless?: string) {
  const file = await describeFile(path)
  if (file.sha256 === unless) return null
  const sent = await sendFile(api, file)
  return { ...sent, ext: file.ext, size: file.size, sha256: file.sha256 }
}

/**
 * Hashes the file at `path`; `name` gives the extension when it is not `path`'s own (a site's
 * item read through a link). `bar` counts the bytes hashed.
 */
export async function describeFile(path: string, name = path, bar?: Progress): Promise<Described> {
  const size = fileSize(path)
  const ext = extFor(name, path)
  const sha256 = await hashFile(path, size, bar)
  return { path, sha256, ext, size, mime: contentTypeFor(ext) }
}

/** presign, PUT unless the workspace has the bytes already, finalize: the file's id. */
export async function sendFile(api: Api, file: Described, bar?: Progress) {
  const { path, ...meta } = file
  const presign = await api.request<Presign>('/v1/upload/presign', { method: 'POST', json: meta })
  if (!presign.exists) {
    const headers = presign.headers ?? {}
    await putFile(presign.upload_url, path, file.size, presign.content_type, headers, bar)
  }
  const fin = await api.request<Finalized>('/v1/upload/finalize', {
    method: 'POST',
    json: { ...meta, file_id: presign.file_id },
  })
  return { fileId: fin.file.file_id, uploaded: !presign.exists }
}

/**
 * The extension of `name`, lowercased; without a usable one, `txt` when the bytes at `path` are
 * UTF-8 text, else `bin`.
 */
export function extFor(name: string, path = name): string {
  const ext = extname(basename(name)).slice(1).toLowerCase()
  if (/^[a-z0-9]{1,16}$/.test(ext)) return ext
  return looksLikeText(path) ? 'txt' : 'bin'
}

function looksLikeText(path: string): boolean {
  const head = Buffer.alloc(4096)
  const fd = openSync(path, 'r')
  const read = readSync(fd, head, 0, head.length, 0)
  closeSync(fd)
  const bytes = head.subarray(0, read)
  if (bytes.includes(0)) return false
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true })
    return true
  } catch {
    return false
  }
}

export function fileSize(path: string): number {
  let stats
  try {
    stats = statSync(path)
  } catch {
    throw new CliError(`no such file: ${path}`, 'file_not_found')
  }
  if (!stats.isFile()) throw new CliError(`not a regular file: ${path}`, 'usage')
  return stats.size
}
