import { AppError } from '../errors'
import { blobKey, checkObject } from '../storage/blobs'
import { presignUrl, type StorageTarget } from '../storage/presign'
import { contentTypeFor } from './content-types'
import { newId, sha256Hex } from './crypto'
import type { Actor, Services } from './services'

export type UploadInput = {
  sha256: string
  ext: string
  size: number
  mime: string
  file_id?: string
}

type FileRow = {
  file_id: string
  sha256: string
  size: number
  mime: string
  blob_key: string
  status: 'pending' | 'ready'
}

export const presentFile = (f: FileRow) => ({
  file_id: f.file_id,
  sha256: f.sha256,
  size: f.size,
  mime: f.mime,
})

/**
 * Registers the content (one row per workspace and sha256, so its file_id is stable from here on)
 * and answers where to PUT it, or `exists: true` when the workspace already holds the bytes.
 */
export async function presignUpload(
  svc: Services,
  actor: Actor,
  input: UploadInput,
  target: StorageTarget,
) {
  checkSize(svc, input.size)
  const file = await upsertPending(svc, actor, input)
  const exists = file.status === 'ready' || (await svc.bucket.head(file.blob_key)) !== null
  const expiresIn = svc.settings.uploadUrlTtl
  return {
    file_id: file.file_id,
    blob_key: file.blob_key,
    upload_url: await presignUrl(target, 'PUT', file.blob_key, expiresIn),
    content_type: contentTypeFor(input.ext),
    expires_in: expiresIn,
    exists,
  }
}

/** Verifies the stored object against the declared size and sha256, then marks the file ready. */
export async function finalizeUpload(svc: Services, actor: Actor, input: UploadInput) {
  checkSize(svc, input.size)
  const file = await findFile(svc, actor, input.sha256)
  if (file && input.file_id && input.file_id !== file.file_id) {
    throw new AppError(
      'invalid_request',
      'file_id: does not match the presigned upload of this content',
    )
  }
  if (file?.status === 'ready') return { file: presentFile(file), reused: true }
  if (!file) {
    if (input.file_id) throw new AppError('file_not_found', 'file_id: no such file')
    throw new AppError(
      'upload_incomplete',
      'no presigned upload for this content: call presign first',
    )
  }
  await verifyStored(svc, file.blob_key, input.sha256, input.size)
  const ready = await markReady(svc, actor, input.sha256, input.size, input.mime)
  return { file: presentFile(ready), reused: false }
}

/**
 * A multipart upload: the bytes are already here, so store, verify and register them at once
 * (one D1 round trip: the row is inserted ready, or an existing pending row is promoted).
 */
export async function storeDirect(svc: Services, actor: Actor, bytes: ArrayBuffer, mime: string) {
  const sha256 = await sha256Hex(bytes)
  const size = bytes.byteLength
  const key = blobKey(actor.workspaceId, sha256)
  const put = await svc.bucket.put(key, bytes, { sha256, onlyIf: { etagDoesNotMatch: '*' } })
  // An object under this key that is not these bytes (a PUT never finalized) is replaced.
  if (!put && (await checkObject(svc.bucket, key, sha256, size)) !== 'ok') {
    await svc.bucket.delete(key)
    await svc.bucket.put(key, bytes, { sha256 })
  }
  const now = svc.now()
  const [, selected] = await svc.db.batch([
    svc.db
      .prepare(
        `INSERT INTO files (file_id, workspace_id, sha256, size, mime, blob_key, status, created_at, finalized_at)
         VALUES (?, ?, ?, ?, ?, ?, 'ready', ?, ?)
         ON CONFLICT (workspace_id, sha256) DO UPDATE
           SET status = 'ready', size = excluded.size, mime = excluded.mime, finalized_at = excluded.finalized_at
           WHERE files.status = 'pending'`,
      )
      .bind(newId(), actor.workspaceId, sha256, size, mime, key, now, now),
    selectFile(svc, actor, sha256),
  ])
  return (selected.results as FileRow[])[0]
}

async function verifyStored(svc: Services, key: string, sha256: string, size: number) {
  const check = await checkObject(svc.bucket, key, sha256, size)
  if (check === 'missing') {
    throw new AppError('upload_incomplete', 'the content has not been uploaded to upload_url yet')
  }
  if (check === 'mismatch') {
    // Delete the bad object so the next presign offers a fresh upload instead of `exists`.
    await svc.bucket.delete(key)
    throw new AppError(
      'checksum_mismatch',
      'the uploaded content does not match the declared size and sha256; upload it again',
    )
  }
}

async function upsertPending(
  svc: Services,
  actor: Actor,
  input: { sha256: string; size: number; mime: string },
): Promise<FileRow> {
  const [, selected] = await svc.db.batch([
    svc.db
      .prepare(
        `INSERT INTO files (file_id, workspace_id, sha256, size, mime, blob_key, status, created_at)
         VALUES (?, ?, ?, ?, ?, ?, 'pending', ?)
         ON CONFLICT (workspace_id, sha256) DO NOTHING`,
      )
      .bind(
        newId(),
        actor.workspaceId,
        input.sha256,
        input.size,
        input.mime,
        blobKey(actor.workspaceId, input.sha256),
        svc.now(),
      ),
    selectFile(svc, actor, input.sha256),
  ])
  return (selected.results as FileRow[])[0]
}

async function markReady(svc: Services, actor: Actor, sha256: string, size: number, mime: string) {
  const [, selected] = await svc.db.batch([
    svc.db
      .prepare(
        `UPDATE files SET status = 'ready', size = ?, mime = ?, finalized_at = ?
         WHERE workspace_id = ? AND sha256 = ? AND status = 'pending'`,
      )
      .bind(size, mime, svc.now(), actor.workspaceId, sha256),
    selectFile(svc, actor, sha256),
  ])
  const file = (selected.results as FileRow[])[0]
  if (!file) throw new AppError('upload_incomplete', 'the upload was removed; presign it again')
  return file
}

function selectFile(svc: Services, actor: Actor, sha256: string) {
  return svc.db
    .prepare(
      `SELECT file_id, sha256, size, mime, blob_key, status FROM files
       WHERE workspace_id = ? AND sha256 = ?`,
    )
    .bind(actor.workspaceId, sha256)
}

async function findFile(svc: Services, actor: Actor, sha256: string) {
  return selectFile(svc, actor, sha256).first<FileRow>()
}

function checkSize(svc: Services, size: number) {
  if (size > svc.settings.maxFileBytes) {
    throw new AppError(
      'payload_too_large',
      `size: ${size} bytes is over the limit of ${svc.settings.maxFileBytes} bytes`,
    )
  }
}
