import { sql, type SQLWrapper } from 'drizzle-orm'
import { toHex } from '../lib/crypto'

// Content lives in R2 under `files/<first 2 hex of sha256>/<workspace_id>/<sha256>`: the key names
// the content, so an object under a key is either absent or exactly those bytes once verified.

export function blobKey(workspaceId: string, sha256: string): string {
  return `files/${sha256.slice(0, 2)}/${workspaceId}/${sha256}`
}

/** `blobKey` in SQL, for a statement that learns the workspace itself (from an API key's row). */
export function blobKeySql(workspaceId: SQLWrapper, sha256: SQLWrapper | string) {
  return sql<string>`'files/' || substr(${sha256}, 1, 2) || '/' || ${workspaceId} || '/' || ${sha256}`
}

/** Parses a blob key; null for anything else (the storage route serves nothing but blobs). */
export function parseBlobKey(key: string): { workspaceId: string; sha256: string } | null {
  const match = /^files\/([0-9a-f]{2})\/([A-Za-z0-9]{1,64})\/([0-9a-f]{64})$/.exec(key)
  if (!match || !match[3].startsWith(match[1])) return null
  return { workspaceId: match[2], sha256: match[3] }
}

export type Check = 'missing' | 'mismatch' | 'ok'

/**
 * Does the stored object hold exactly these bytes? R2 keeps a SHA-256 for objects written with
 * one (the local storage route always does); otherwise the object is streamed through a digest.
 */
export async function checkObject(
  bucket: R2Bucket,
  key: string,
  sha256: string,
  size: number,
): Promise<Check> {
  const head = await bucket.head(key)
  if (!head) return 'missing'
  if (head.size !== size) return 'mismatch'
  if (head.checksums.sha256) {
    return toHex(head.checksums.sha256) === sha256 ? 'ok' : 'mismatch'
  }
  const object = await bucket.get(key)
  if (!object) return 'missing'
  const digest = new crypto.DigestStream('SHA-256')
  await object.body.pipeTo(digest)
  return toHex(await digest.digest) === sha256 ? 'ok' : 'mismatch'
}
