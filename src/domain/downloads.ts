import { presignUrl, type StorageTarget } from '../storage/presign'
import type { ContentRef } from './canvases/reads'
import { contentDisposition, contentTypeFor } from '../lib/content-types'
import type { Services } from './services'

/**
 * Storage URLs given out under a share link (its downloads and frames) live at most this long: a
 * signed URL cannot be recalled, so this is the most a withdrawal of that access waits
 * (SECURITY.md).
 */
export const SHORT_STORAGE_URL_SECONDS = 60

/** The lifetime of a storage URL given out under a share link. */
export const shareUrlTtl = (svc: Services) =>
  Math.min(svc.settings.downloadUrlTtl, SHORT_STORAGE_URL_SECONDS)

/** A short-lived signed GET whose response headers (type, disposition) are fixed by the signature. */
export function signedDownload(
  svc: Services,
  target: StorageTarget,
  content: Pick<ContentRef, 'blobKey' | 'title' | 'ext'>,
  attachment: boolean,
  ttl = svc.settings.downloadUrlTtl,
): Promise<string> {
  return presignUrl(target, 'GET', content.blobKey, ttl, {
    'response-content-type': contentTypeFor(content.ext),
    'response-content-disposition': contentDisposition(
      attachment ? 'attachment' : 'inline',
      content.title,
      content.ext,
    ),
  })
}
