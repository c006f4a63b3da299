import { archiveStream, checkArchiveSize } from '../domain/archive'
import type { Actor, Services } from '../domain/services'
import { archiveEntries } from '../domain/site-reads'
import { contentDisposition } from '../lib/content-types'

/** A version as a zip download, streamed: for the API (an actor) and the web page (authorized). */
export async function archiveResponse(
  svc: Services,
  actor: Actor | null,
  canvasId: string,
  version: number,
): Promise<Response> {
  const archive = await archiveEntries(svc, actor, canvasId, version)
  checkArchiveSize(archive.entries)
  return new Response(archiveStream(svc, archive.entries, archive.createdAt), {
    headers: {
      'Content-Type': 'application/zip',
      'Content-Disposition': contentDisposition(
        'attachment',
        `${archive.title}-v${version}`,
        'zip',
      ),
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    },
  })
}
