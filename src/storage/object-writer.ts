// An object written as it is produced: R2 takes a stream only of a length known in advance, so
// the writer is the writable half of a FixedLengthStream whose readable half R2 is storing. Each
// write waits for R2 to take the bytes: the writer holds nothing of its own.

export type ObjectWriter = {
  write(bytes: Uint8Array): Promise<void>
  /** Waits until the object is stored. */
  close(): Promise<void>
  /** Gives the upload up: nothing is stored. */
  abort(): Promise<void>
}

export function objectWriter(
  bucket: R2Bucket,
  key: string,
  length: number,
  options: R2PutOptions = {},
): ObjectWriter {
  const { readable, writable } = new FixedLengthStream(length)
  const stored = bucket.put(key, readable, options)
  // Observed by close and abort; unobserved, a failed put would be an unhandled rejection.
  stored.catch(() => {})
  const writer = writable.getWriter()
  // An aborted writer's `closed` rejects too, with nobody waiting on it.
  writer.closed.catch(() => {})
  return {
    async write(bytes) {
      await writer.ready
      await writer.write(bytes)
    },
    async close() {
      await writer.close()
      await stored
    },
    async abort() {
      await writer.abort('given up').catch(() => {})
      await stored.catch(() => {})
    },
  }
}
