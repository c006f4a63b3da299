import { concatBytes } from '../lib/bytes'

// An object written as it is produced, of a length not known before it ends: R2's binding takes a
// stream only of known length, so the bytes go up as a multipart upload, in parts of PART_BYTES
// (R2 wants every part but the last at least 5 MiB, and all but the last of one size). The writer
// holds one part at a time.

const PART_BYTES = 8 * 1024 * 1024

export type ObjectWriter = {
  write(bytes: Uint8Array): Promise<void>
  /** Stores the object; answers its size. */
  close(): Promise<number>
  /** Gives the upload up: nothing is stored. */
  abort(): Promise<void>
}

export async function objectWriter(
  bucket: R2Bucket,
  key: string,
  options: R2MultipartOptions = {},
): Promise<ObjectWriter> {
  const upload = await bucket.createMultipartUpload(key, options)
  const parts: R2UploadedPart[] = []
  let held: Uint8Array[] = []
  let heldBytes = 0
  let size = 0

  async function send(bytes: Uint8Array) {
    parts.push(await upload.uploadPart(parts.length + 1, bytes))
  }

  return {
    async write(bytes) {
      size += bytes.byteLength
      held.push(bytes)
      heldBytes += bytes.byteLength
      while (heldBytes >= PART_BYTES) {
        const joined = concatBytes(held, heldBytes)
        await send(joined.subarray(0, PART_BYTES))
        const rest = joined.subarray(PART_BYTES)
        held = rest.byteLength ? [rest] : []
        heldBytes = rest.byteLength
      }
    },
    async close() {
      // An empty object is one empty part: an upload needs at least one.
      if (heldBytes > 0 || parts.length === 0) await send(concatBytes(held, heldBytes))
      held = []
      await upload.complete(parts)
      return size
    },
    async abort() {
      held = []
      await upload.abort()
    },
  }
}
