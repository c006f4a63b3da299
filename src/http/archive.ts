import {
  archiveLength,
  archiveStream,
  checkArchiveSize,
  type ArchiveCopy,
} from '../domain/archives/archive'
import {
  archiveKey,
  claimArchive,
  keepArchive,
  releaseArchive,
  storedArchive,
} from '../domain/archives/store'
import type { Services } from '../domain/services'
import type { Actor } from '../domain/actor'
import { archiveEntries } from '../domain/canvases/site-reads'
import { contentDisposition } from '../lib/content-types'
import { objectWriter } from '../storage/object-writer'

/**
 * Bytes about to be sent: a visitor's download is counted against its budget before it starts
 * (domain/download-budget), and refused, sending nothing, past it.
 */
export type Charge = (bytes: number) => Promise<void>

/**
 * A version as a zip download: for the API (an actor) and the web page (authorized, null). The
 * first download makes it, streaming it to its client and into storage at once; every later one
 * is the stored object, which the Worker passes on without touching its bytes. Downloads that
 * start while the first is still making it make their own, unstored.
 */
export async function archiveResponse(
  svc: Services,
  actor: Actor | null,
  canvasId: string,
  version: number,
  charge?: Charge,
): Promise<Response> {
  const stored = await storedArchive(svc, actor, canvasId, version)
  if (stored) {
    await charge?.(stored.size)
    const object = await svc.bucket.get(stored.blobKey)
    if (object) {
      return zipResponse(object.body, stored.title, version, {
        'Content-Length': String(object.size),
      })
    }
  }
  const archive = await archiveEntries(svc, actor, canvasId, version)
  checkArchiveSize(archive.entries)
  // Charged here only when it was not already, above, for an object found missing.
  if (!stored) await charge?.(archive.entries.reduce((sum, entry) => sum + entry.size, 0))
  const copy = (await claimArchive(svc, canvasId, version, stored !== null))
    ? copyOf(svc, canvasId, version, archiveLength(archive.entries))
    : undefined
  const body = archiveStream(svc, archive.entries, archive.createdAt, copy)
  return zipResponse(body, archive.title, version)
}

function copyOf(svc: Services, canvasId: string, version: number, length: number): ArchiveCopy {
  const writer = objectWriter(svc.bucket, archiveKey(canvasId, version), length, {
    httpMetadata: { contentType: 'application/zip' },
  })
  return {
    writer,
    kept: () => keepArchive(svc, canvasId, version, length),
    dropped: () => releaseArchive(svc, canvasId, version),
  }
}

function zipResponse(
  body: ReadableStream,
  title: string,
  version: number,
  headers: Record<string, string> = {},
) {
  return new Response(body, {
    headers: {
      'Content-Type': 'application/zip',
      'Content-Disposition': contentDisposition('attachment', `${title}-v${version}`, 'zip'),
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      ...headers,
    },
  })
}
