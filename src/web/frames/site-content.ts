import { readRange } from '../../lib/range'
import { contentTypeFor } from '../../lib/content-types'
import { escapeHtml } from '../../lib/escape'
import { pathExt } from '../../domain/canvases/site-items'
import type { Services } from '../../domain/services'
import { FRAME_CSS } from '../../render/frame-style'
import { SCRIPTED_CSP } from './content'

// The files of a site, served to its frame by path (frames.ts checks the signature and access).
// Every answer is sandboxed like the html renderer's frame (an opaque origin: no cookie, no
// storage, nothing of the app's reachable), and open to any origin for reading, since the site's
// own scripts run in that opaque origin and `fetch('data.json')` is cross-origin from there.

function siteHeaders(appOrigin: string, type: string) {
  return new Headers({
    'Content-Type': type,
    'Content-Security-Policy': `${SCRIPTED_CSP}; frame-ancestors ${appOrigin}`,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Expose-Headers': 'Content-Range, Accept-Ranges, Content-Length',
    // Access is checked per request, so no cache may answer for us after it is withdrawn.
    'Cache-Control': 'no-store',
  })
}

/** One file's bytes, whole or the one range asked for (a video seeks), typed by its extension. */
export async function siteFile(
  svc: Services,
  item: { blob_key: string; size: number },
  path: string,
  request: Request,
  appOrigin: string,
): Promise<Response> {
  const headers = siteHeaders(appOrigin, contentTypeFor(pathExt(path) ?? ''))
  headers.set('Accept-Ranges', 'bytes')
  const range = readRange(request.headers.get('Range') ?? undefined, item.size)
  if (range.kind === 'unsatisfiable') {
    headers.set('Content-Range', `bytes */${item.size}`)
    return new Response(null, { status: 416, headers })
  }
  const part = range.kind === 'part' ? range : null
  const object = await svc.bucket.get(
    item.blob_key,
    part ? { range: { offset: part.offset, length: part.length } } : {},
  )
  if (!object) return siteNotFound(path, appOrigin)
  if (!part) return new Response(object.body, { headers })
  headers.set('Content-Range', `bytes ${part.offset}-${part.offset + part.length - 1}/${item.size}`)
  return new Response(object.body, { status: 206, headers })
}

/** The answer to a CORS preflight from the site's own scripts. */
export function sitePreflight(): Response {
  return new Response(null, {
    status: 204,
    headers: {
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Methods': 'GET, HEAD',
      'Access-Control-Allow-Headers': '*',
      'Access-Control-Max-Age': '600',
    },
  })
}

/** A path the version does not hold: a small page inside the frame, not the app's error page. */
export function siteNotFound(path: string, appOrigin: string): Response {
  const html = `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Not found</title><style>${FRAME_CSS}</style></head><body><div class="card"><div class="name">Not found</div><div class="meta">This version has no file <code>${escapeHtml(path)}</code>.</div></div></body></html>`
  return new Response(html, {
    status: 404,
    headers: siteHeaders(appOrigin, 'text/html; charset=utf-8'),
  })
}
