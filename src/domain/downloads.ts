import { presignUrl, type StorageTarget } from '../storage/presign'
import type { ContentRef } from './canvases'
import { contentDisposition, contentTypeFor } from './content-types'
import type { Services } from './services'

/** A short-lived signed GET whose response headers (type, disposition) are fixed by the signature. */
export function signedDownload(
  svc: Services,
  target: StorageTarget,
  content: Pick<ContentRef, 'blobKey' | 'title' | 'ext'>,
  attachment: boolean,
): Promise<string> {
  return presignUrl(target, 'GET', content.blobKey, svc.settings.downloadUrlTtl, {
    'response-content-type': contentTypeFor(content.ext),
    'response-content-disposition': contentDisposition(
      attachment ? 'attachment' : 'inline',
      content.title,
      content.ext,
    ),
  })
}
