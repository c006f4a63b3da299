import { AwsV4Signer } from 'aws4fetch'
import { constantTimeEqual } from '../lib/crypto'

// Presigned URLs are SigV4 query signatures (S3's own scheme). With R2 credentials they target
// R2's S3 endpoint; otherwise the Worker's `/_storage` route, which checks them with the same code.

export type StorageTarget = {
  base: string
  accessKeyId: string
  secretAccessKey: string
  region: string
  /**
   * R2's S3 endpoint: uploads must carry signed `If-None-Match: *` and `x-amz-checksum-sha256`
   * headers, so R2 itself refuses an overwrite or other bytes. (The local route enforces both on
   * its own, from the key.)
   */
  remote?: boolean
}

export const LOCAL_ACCESS_KEY_ID = 'canvas-local'
export const LOCAL_STORAGE_PATH = '/_storage'
const MAX_EXPIRES = 7 * 24 * 3600

export function localTarget(origin: string, secret: string): StorageTarget {
  return {
    base: origin + LOCAL_STORAGE_PATH,
    accessKeyId: LOCAL_ACCESS_KEY_ID,
    secretAccessKey: secret,
    region: 'auto',
  }
}

export async function presignUrl(
  target: StorageTarget,
  method: 'GET' | 'PUT',
  key: string,
  expiresIn: number,
  query: Record<string, string> = {},
  now = new Date(),
  headers: Record<string, string> = {},
): Promise<string> {
  const url = new URL(`${target.base}/${key.split('/').map(encodeURIComponent).join('/')}`)
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value)
  url.searchParams.set('X-Amz-Expires', String(expiresIn))
  return (await signer(target, method, url, amzDate(now), headers).sign()).url.toString()
}

/** The headers a PUT to a remote target must send (they are part of its signature). */
export function uploadHeaders(target: StorageTarget, sha256Hex: string): Record<string, string> {
  if (!target.remote) return {}
  const bytes = sha256Hex.match(/../g)!.map((h) => parseInt(h, 16))
  return { 'If-None-Match': '*', 'x-amz-checksum-sha256': btoa(String.fromCharCode(...bytes)) }
}

export type Verdict = 'valid' | 'expired' | 'invalid'

/** Checks a presigned request the way S3 does: recompute the signature and compare; then expiry. */
export async function verifyPresigned(
  method: string,
  requestUrl: string,
  target: StorageTarget,
  now = new Date(),
): Promise<Verdict> {
  const url = new URL(requestUrl)
  const params = url.searchParams
  const signature = params.get('X-Amz-Signature')
  const date = params.get('X-Amz-Date')
  const expires = Number(params.get('X-Amz-Expires'))
  if (!signature || !date || !/^\d{8}T\d{6}Z$/.test(date)) return 'invalid'
  if (!Number.isInteger(expires) || expires < 1 || expires > MAX_EXPIRES) return 'invalid'
  if (params.get('X-Amz-SignedHeaders') !== 'host') return 'invalid'
  if (!params.get('X-Amz-Credential')?.startsWith(target.accessKeyId + '/')) return 'invalid'
  params.delete('X-Amz-Signature')
  const expected = await signer(target, method, url, date).signature()
  if (!constantTimeEqual(expected, signature)) return 'invalid'
  const signedAt = parseAmzDate(date)
  if (signedAt - now.getTime() > 15 * 60_000) return 'invalid'
  return now.getTime() > signedAt + expires * 1000 ? 'expired' : 'valid'
}

// SigV4 signs with a key derived from the secret, the day, the region and the service: four HMACs,
// each a key import and a signature, before the one that signs the request. aws4fetch keeps the
// derived key in the cache it is given (a fresh Map per signer otherwise), so a day's is derived
// once per isolate, not per signature (BENCHMARKS.md). Cleared whole when it grows: entries of past days are never asked again.
const derivedKeys = new Map<string, ArrayBuffer>()
const MAX_DERIVED_KEYS = 16

function signer(
  target: StorageTarget,
  method: string,
  url: URL,
  datetime: string,
  headers: Record<string, string> = {},
) {
  if (derivedKeys.size >= MAX_DERIVED_KEYS) derivedKeys.clear()
  return new AwsV4Signer({
    method,
    url: url.toString(),
    headers,
    accessKeyId: target.accessKeyId,
    secretAccessKey: target.secretAccessKey,
    service: 's3',
    region: target.region,
    signQuery: true,
    datetime,
    cache: derivedKeys,
  })
}

function amzDate(date: Date): string {
  return date.toISOString().replace(/[:-]|\.\d{3}/g, '')
}

function parseAmzDate(value: string): number {
  const iso = `${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6, 8)}T${value.slice(9, 11)}:${value.slice(11, 13)}:${value.slice(13, 15)}Z`
  return Date.parse(iso)
}
