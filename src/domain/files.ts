import { and, eq, gt, isNull, ne, or, sql, type Placeholder } from 'drizzle-orm'
import { AppError } from '../lib/errors'
import { blobKey, blobKeySql, checkObject } from '../storage/blobs'
import { prepared, value, type Placeholders } from '../storage/db'
import { apiKeys, files, workspaces } from '../storage/schema'
import { presignUrl, uploadHeaders, type StorageTarget } from '../storage/presign'
import { contentTypeFor } from '../lib/content-types'
import { newId, sha256Hex } from '../lib/crypto'
import { liveWriteKey } from './keys'
import type { Services } from './services'
import type { Actor } from './actor'
import type { File as FileJson, Finalized, Presign } from '../schema/responses'
import {
  liveUploadsSince,
  quotaExceeded,
  quotaOf,
  requireRoom,
  roomFor,
  roomToFinish,
} from './workspaces/quota'

export type UploadInput = {
  sha256: string
  ext: string
  size: number
  mime: string
  file_id?: string
}

type FileRow = ReturnType<typeof selectFile>['_']['result'][number]

export const presentFile = (f: FileRow): FileJson => ({
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
): Promise<Presign> {
  checkSize(svc, input.size)
  const fresh = newFile(svc, input)
  const registered = await registerFile(svc.db, {
    ...fresh,
    workspaceId: actor.workspaceId,
    quota: svc.settings.workspaceQuotaBytes,
    since: liveUploadsSince(svc),
  }).all()
  return presignAnswer(svc, actor.workspaceId, registered, fresh.fileId, input, target)
}

/**
 * `presignUpload`'s statement for the batch that looks up the API key with hash `keyHash`
 * (`authorizeWrite`): the content is registered in the key's workspace, and only for a live key
 * with the `write` scope, so a refused key registers nothing. Checks the size first. `fileId` is
 * the id a new row gets, for `presignAnswer`.
 */
export function presignStatement(svc: Services, keyHash: string, input: UploadInput) {
  checkSize(svc, input.size)
  const fresh = newFile(svc, input)
  const quota = svc.settings.workspaceQuotaBytes
  return {
    fileId: fresh.fileId,
    statement: registerKeyFile(svc.db, { ...fresh, keyHash, quota, since: liveUploadsSince(svc) }),
  }
}

/**
 * The answer for the content's row as the presign statement returned it; `newFileId` is the id the
 * statement gave a row it inserted.
 */
export async function presignAnswer(
  svc: Services,
  workspaceId: string,
  registered: FileRow[],
  newFileId: string,
  input: UploadInput,
  target: StorageTarget,
): Promise<Presign> {
  // Inserted or touched, the row comes back; only a row the sweep is removing is left alone.
  const file = registered[0]
  if (!file) {
    // Past the quota (the statement registers nothing then), or being removed by the sweep.
    await requireRoom(svc, workspaceId, input.sha256, input.size)
    throw beingRemoved()
  }
  const exists = await holdsBytes(svc, file, file.file_id === newFileId, target)
  const expiresIn = svc.settings.uploadUrlTtl
  const headers = uploadHeaders(target, input.sha256)
  return {
    file_id: file.file_id,
    blob_key: file.blob_key,
    upload_url: await presignUrl(target, 'PUT', file.blob_key, expiresIn, {}, new Date(), headers),
    content_type: contentTypeFor(input.ext),
    expires_in: expiresIn,
    exists,
    // Send these with the PUT: with R2 they are signed, so R2 refuses an overwrite or other bytes.
    headers,
  }
}

/**
 * Whether storage holds the file's bytes, from its row where the row can tell: a look at R2 was a
 * quarter of presign's CPU, and an R2 operation billed on every presign.
 * - Ready, or uploaded_at set: yes (only the sweep deletes the bytes of a file it can still use,
 *   after marking it `deleting`; finalize clears uploaded_at when it finds them missing).
 * - A row this presign inserted: no. Bytes reach a key only through a URL signed for its row, and
 *   the sweep removes a row (bytes first) only once every URL signed for it has expired.
 * - Local storage: no. Its upload route (api/storage.ts) sets uploaded_at after storing the bytes.
 * - R2's S3 endpoint takes uploads without the Worker hearing of them: only R2 can say, and its
 *   yes is kept on the row, so each content is looked up until seen, then never again.
 * An upload finishing meanwhile can still be answered no (so can bytes a direct upload stored
 * before its row write failed): the client's PUT then gets 412 (a presigned PUT never overwrites)
 * and goes on to finalize, as it does when another client raced it.
 */
async function holdsBytes(svc: Services, file: FileRow, inserted: boolean, target: StorageTarget) {
  if (file.status === 'ready' || file.uploaded_at !== null) return true
  if (inserted || !target.remote) return false
  if ((await svc.bucket.head(file.blob_key)) === null) return false
  await setUploaded(svc.db, file.file_id, svc.now())
  return true
}

/**
 * Records that the bytes of the workspace's pending content `sha256` are in storage: for the local
 * upload route, once it stored them (or found them there).
 */
export async function markStored(svc: Services, workspaceId: string, sha256: string) {
  await svc.db
    .update(files)
    .set({ uploadedAt: svc.now() })
    .where(
      and(
        eq(files.workspaceId, workspaceId),
        eq(files.sha256, sha256),
        eq(files.status, 'pending'),
        isNull(files.uploadedAt),
      ),
    )
}

/** Sets or clears a pending file's uploaded_at (a ready file's bytes are known to be there). */
async function setUploaded(db: Services['db'], fileId: string, at: number | null) {
  await db
    .update(files)
    .set({ uploadedAt: at })
    .where(and(eq(files.fileId, fileId), eq(files.status, 'pending')))
}

/** Verifies the stored object against the declared size and sha256, then marks the file ready. */
export async function finalizeUpload(
  svc: Services,
  actor: Actor,
  input: UploadInput,
): Promise<Finalized> {
  checkSize(svc, input.size)
  const [, selected] = await svc.db.batch([
    touch(svc, actor, input.sha256),
    selectFile(svc.db, { workspaceId: actor.workspaceId, sha256: input.sha256 }),
  ])
  const found = selected[0]
  if (found && input.file_id && input.file_id !== found.file_id) {
    throw new AppError(
      'invalid_request',
      'file_id: does not match the presigned upload of this content',
    )
  }
  if (!found) {
    if (input.file_id) throw new AppError('file_not_found', 'file_id: no such file')
    throw new AppError(
      'upload_incomplete',
      'no presigned upload for this content: call presign first',
    )
  }
  const file = usable(found)
  if (file.status === 'ready') return { file: presentFile(file), reused: true }
  await verifyStored(svc, file, input.sha256, input.size)
  const [, after] = await svc.db.batch([
    svc.db
      .update(files)
      .set({
        status: 'ready',
        size: input.size,
        mime: input.mime,
        finalizedAt: svc.now(),
        touchedAt: svc.now(),
      })
      .where(
        and(
          eq(files.workspaceId, actor.workspaceId),
          eq(files.sha256, input.sha256),
          eq(files.status, 'pending'),
          roomToFinish(svc, actor.workspaceId, input.sha256, input.size),
        ),
      ),
    selectFile(svc.db, { workspaceId: actor.workspaceId, sha256: input.sha256 }),
  ])
  const ready = after[0]
  // Still pending: the quota held it back (its bytes stay until the sweep removes the upload).
  if (ready?.status === 'pending') {
    throw quotaExceeded(await quotaOf(svc, actor.workspaceId, input.sha256), input.size)
  }
  if (ready?.status !== 'ready') throw removedMeanwhile()
  return { file: presentFile(ready), reused: false }
}

/**
 * A multipart upload: the bytes are already here, so store, register and verify them at once
 * (one D1 round trip: the row is inserted ready, or an existing row is promoted and touched).
 */
export async function storeDirect(svc: Services, actor: Actor, bytes: ArrayBuffer, mime: string) {
  const sha256 = await sha256Hex(bytes)
  const size = bytes.byteLength
  const key = blobKey(actor.workspaceId, sha256)
  const stored = await svc.bucket.put(key, bytes, { sha256, onlyIf: { etagDoesNotMatch: '*' } })
  const now = svc.now()
  // Past the quota nothing is registered.
  const [, selected] = await svc.db.batch([
    svc.db
      .insert(files)
      .select((qb) =>
        qb
          .select({
            fileId: value(files.fileId, newId()),
            workspaceId: workspaces.workspaceId,
            sha256: value(files.sha256, sha256),
            size: value(files.size, size),
            mime: value(files.mime, mime),
            blobKey: value(files.blobKey, key),
            status: value(files.status, 'ready'),
            createdAt: value(files.createdAt, now),
            finalizedAt: value(files.finalizedAt, now),
            touchedAt: value(files.touchedAt, now),
            checkedAt: value(files.checkedAt, null),
            uploadedAt: value(files.uploadedAt, null),
          })
          .from(workspaces)
          .where(
            and(
              eq(workspaces.workspaceId, actor.workspaceId),
              roomFor(
                svc.db,
                sha256,
                size,
                svc.settings.workspaceQuotaBytes,
                liveUploadsSince(svc),
              ),
            ),
          ),
      )
      .onConflictDoUpdate({
        target: [files.workspaceId, files.sha256],
        // CASE and COALESCE over the stored row: the builder has neither.
        set: {
          status: 'ready',
          size: sql`CASE ${files.status} WHEN 'pending' THEN excluded.size ELSE ${files.size} END`,
          mime: sql`CASE ${files.status} WHEN 'pending' THEN excluded.mime ELSE ${files.mime} END`,
          finalizedAt: sql`COALESCE(${files.finalizedAt}, excluded.finalized_at)`,
          touchedAt: now,
        },
        setWhere: ne(files.status, 'deleting'),
      }),
    selectFile(svc.db, { workspaceId: actor.workspaceId, sha256 }),
  ])
  if (!selected[0]) {
    // The object this put made (a null answer: one was there already) goes again, held by no row;
    // should that fail, the sweep removes it (adoptOrphanObjects).
    if (stored) await svc.bucket.delete(key).catch(() => {})
    await requireRoom(svc, actor.workspaceId, sha256, size)
  }
  const file = usable(selected[0])
  // Registered and just touched, the file is out of the sweep's reach from here on. Before that,
  // the sweep may have removed this very object (it deletes a `deleting` file's object, then its
  // row), whether our PUT found the object there or wrote it: so the bytes are checked only now,
  // and written again if they went. An object that is not these bytes (a PUT never finalized) is
  // replaced the same way, by an unconditional put: one step, so a failure leaves no gap.
  if ((await checkObject(svc.bucket, key, sha256, size)) !== 'ok') {
    await svc.bucket.put(key, bytes, { sha256 })
  }
  svc.stored?.set(file.file_id, { bytes, mime: file.mime })
  return file
}

async function verifyStored(svc: Services, file: FileRow, sha256: string, size: number) {
  const check = await checkObject(svc.bucket, file.blob_key, sha256, size)
  if (check === 'ok') return
  // Not there (or no longer): the row must stop saying so, or presign would answer `exists` and
  // the client skip the upload it needs.
  if (check === 'mismatch') await svc.bucket.delete(file.blob_key)
  if (file.uploaded_at !== null) await setUploaded(svc.db, file.file_id, null)
  if (check === 'missing') {
    throw new AppError('upload_incomplete', 'the content has not been uploaded to upload_url yet')
  }
  throw new AppError(
    'checksum_mismatch',
    'the uploaded content does not match the declared size and sha256; upload it again',
  )
}

/** Content the sweep is removing can be neither reused nor uploaded again until it is gone. */
function usable(file: FileRow | undefined): FileRow {
  if (!file) throw removedMeanwhile()
  if (file.status === 'deleting') throw beingRemoved()
  return file
}

function beingRemoved() {
  return new AppError(
    'conflict',
    'this content is being removed by the cleanup job; retry in a few seconds',
  )
}

function removedMeanwhile() {
  return new AppError('upload_incomplete', 'the upload was removed meanwhile; presign it again')
}

/**
 * Keeps the content's row from the sweep while finalize works on it. An upload whose URL expired
 * is left as it is: touched, it would hold room under the quota again, for an upload no URL can
 * send any more.
 */
function touch(svc: Services, actor: Actor, sha256: string) {
  return svc.db
    .update(files)
    .set({ touchedAt: svc.now() })
    .where(
      and(
        eq(files.workspaceId, actor.workspaceId),
        eq(files.sha256, sha256),
        ne(files.status, 'deleting'),
        or(ne(files.status, 'pending'), gt(files.touchedAt, liveUploadsSince(svc))),
      ),
    )
}

const FILE_FIELDS = {
  file_id: files.fileId,
  sha256: files.sha256,
  size: files.size,
  mime: files.mime,
  blob_key: files.blobKey,
  status: files.status,
  uploaded_at: files.uploadedAt,
}

// Presign and finalize run these on every upload: built once (see prepared()).
const selectFile = prepared((db, p: Placeholders<{ workspaceId: string; sha256: string }>) =>
  db
    .select(FILE_FIELDS)
    .from(files)
    .where(and(eq(files.workspaceId, p('workspaceId')), eq(files.sha256, p('sha256')))),
)

type NewFile = {
  fileId: string
  sha256: string
  size: number
  mime: string
  now: number
}

const newFile = (svc: Services, input: UploadInput): NewFile => ({
  fileId: newId(),
  sha256: input.sha256,
  size: input.size,
  mime: input.mime,
  now: svc.now(),
})

// A row already there is touched (unless the sweep is removing it).
const touchRegistered = (now: Placeholder<'now', number>) => ({
  target: [files.workspaceId, files.sha256],
  // An update takes values or SQL, not a bare placeholder.
  set: { touchedAt: sql`${now}` },
  setWhere: ne(files.status, 'deleting'),
})

/** What a registration is held to: the deployment's quota, and since when uploads are live. */
type Room = { quota: number | null; since: number }

/**
 * The content's row, pending; one already there is touched (unless the sweep is removing it).
 * Either way RETURNING answers the row, where a SELECT after it was one more statement in the
 * batch, a measurable part of presign's CPU (BENCHMARKS.md, scripts/bench/cpu.mjs).
 */
const registerFile = prepared((db, p: Placeholders<NewFile & { workspaceId: string } & Room>) =>
  db
    .insert(files)
    .select((qb) =>
      qb
        .select(pendingRow(p))
        .from(workspaces)
        .where(
          and(
            eq(workspaces.workspaceId, p('workspaceId')),
            roomFor(db, p('sha256'), p('size'), p('quota'), p('since')),
          ),
        ),
    )
    .onConflictDoUpdate(touchRegistered(p('now')))
    .returning(FILE_FIELDS),
)

/** registerFile in the workspace of the live key `keyHash` with the `write` scope: else no row. */
const registerKeyFile = prepared((db, p: Placeholders<NewFile & { keyHash: string } & Room>) =>
  db
    .insert(files)
    .select((qb) =>
      qb
        .select(pendingRow(p))
        .from(apiKeys)
        .innerJoin(workspaces, eq(workspaces.workspaceId, apiKeys.workspaceId))
        .where(
          and(
            liveWriteKey(p('keyHash')),
            roomFor(db, p('sha256'), p('size'), p('quota'), p('since')),
          ),
        ),
    )
    .onConflictDoUpdate(touchRegistered(p('now')))
    .returning(FILE_FIELDS),
)

/** A pending file's row, in the workspace whose row (`workspaces`) the statement selects from. */
const pendingRow = (p: Placeholders<NewFile>) => ({
  fileId: value(files.fileId, p('fileId')),
  workspaceId: workspaces.workspaceId,
  sha256: value(files.sha256, p('sha256')),
  size: value(files.size, p('size')),
  mime: value(files.mime, p('mime')),
  blobKey: blobKeySql(workspaces.workspaceId, p('sha256')).as('blob_key'),
  status: value(files.status, 'pending'),
  createdAt: value(files.createdAt, p('now')),
  finalizedAt: value(files.finalizedAt, null),
  touchedAt: value(files.touchedAt, p('now')),
  checkedAt: value(files.checkedAt, null),
  uploadedAt: value(files.uploadedAt, null),
})

function checkSize(svc: Services, size: number) {
  if (size > svc.settings.maxFileBytes) {
    throw new AppError(
      'payload_too_large',
      `size: ${size} bytes is over the limit of ${svc.settings.maxFileBytes} bytes`,
    )
  }
}
