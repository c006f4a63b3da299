import type { Settings } from '../lib/settings'
import { AppError } from '../lib/errors'
import { localTarget, type StorageTarget } from './presign'

/** Where presigned URLs point: R2's S3 endpoint with credentials, else the Worker's own route. */
export function storageTarget(settings: Settings, requestOrigin: string): StorageTarget {
  if (settings.s3) {
    const { endpoint, bucket, accessKeyId, secretAccessKey, region } = settings.s3
    return { base: `${endpoint}/${bucket}`, accessKeyId, secretAccessKey, region, remote: true }
  }
  if (settings.storageSigningSecret) {
    return localTarget(settings.contentUrl ?? requestOrigin, settings.storageSigningSecret)
  }
  throw new AppError(
    'storage_not_configured',
    'storage is not configured: set S3_* credentials or STORAGE_SIGNING_SECRET',
  )
}
