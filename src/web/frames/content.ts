import { contentTypeFor, fileName } from '../../lib/content-types'
import { escapeHtml } from '../../lib/escape'
import { formatSize } from '../../lib/format'
import type { VersionContent } from '../../domain/canvases/rows'
import { shareUrlTtl, signedDownload } from '../../domain/downloads'
import type { FrameGrant } from '../../domain/frame-access'
import type { Services } from '../../domain/services'
import { renderTextBody } from '../../render/body'
import { FRAME_CSS } from '../../render/frame-style'
import { storageTarget } from '../../storage/target'
import { BRIDGE_HASH, BRIDGE_JS } from '../asset-urls'

// What a content frame answers: its document, rendered by the canvas's renderer, or a redirect to
// the bytes in storage (frame-links.ts signs and checks the URLs that reach here).

// Text renderers read the whole file; above this they offer a download instead.
const MAX_RENDERED_BYTES = 5 * 1024 * 1024

/**
 * A redirect to the version's bytes in storage. Under a share link the URL lives at most a minute
 * (the window a withdrawn link still reads bytes); the owner's and public frames get
 * DOWNLOAD_URL_TTL, since a browser keeps asking the redirected URL for ranges of a video.
 */
export async function storageRedirect(
  svc: Services,
  origin: string,
  content: VersionContent,
  grant: FrameGrant,
  attachment: boolean,
): Promise<Response> {
  const ttl = grant.kind === 'share' ? shareUrlTtl(svc) : svc.settings.downloadUrlTtl
  const url = await signedDownload(
    svc,
    storageTarget(svc.settings, origin),
    { blobKey: content.blob_key, title: content.title, ext: content.ext },
    attachment,
    ttl,
  )
  return new Response(null, {
    status: 302,
    headers: { Location: url, 'Cache-Control': 'no-store' },
  })
}

export const SCRIPTED_CSP =
  "sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads; default-src * data: blob: 'unsafe-inline' 'unsafe-eval'"
const STATIC_CSP =
  "sandbox allow-popups allow-popups-to-escape-sandbox allow-downloads; default-src 'none'; style-src 'unsafe-inline'; img-src * data: blob:; media-src *; font-src data:"
// A rendered frame runs one script, the comments bridge (assets/frame-bridge.ts): it tells the
// page what is selected or clicked and shows the comments' highlights. Its hash is the only
// script the policy allows, so nothing of the content runs; the page's sandbox decides whether
// even that does (only beside comments).
const BRIDGED_CSP = STATIC_CSP.replace('sandbox ', 'sandbox allow-scripts ').replace(
  "default-src 'none';",
  `default-src 'none'; script-src '${BRIDGE_HASH}';`,
)

/** The bridge as a frame carries it, told the app's origin, the only one it talks to. */
const bridgeTag = (appOrigin: string) =>
  `<script data-app="${escapeHtml(appOrigin)}">${BRIDGE_JS}</script>`

/**
 * The frame document for one version, rendered by the canvas's renderer. `raw` is this frame's
 * own `/raw` URL: the bytes it shows are fetched through it, so they too are checked each time.
 */
export async function renderFrame(
  svc: Services,
  content: VersionContent,
  urls: { appOrigin: string; raw: string },
): Promise<Response> {
  if (content.renderer_id === 'html') {
    const object = await svc.bucket.get(content.blob_key)
    if (!object) return new Response('not found', { status: 404 })
    const page = new Response(object.body, { headers: frameHeaders(SCRIPTED_CSP, urls.appOrigin) })
    // The bridge goes last, where a browser puts what follows </html> into the body: it finds
    // the canvas's own document and scripts in place.
    const tag = bridgeTag(urls.appOrigin)
    return new HTMLRewriter()
      .onDocument({ end: (end) => void end.append(tag, { html: true }) })
      .transform(page)
  }
  const body = await renderBody(svc, content, urls.raw)
  return staticFrame(content.title, body, urls.appOrigin, '', true)
}

/**
 * A frame document rendered on the server (`css` added to its style): it runs no script but,
 * when `bridged`, the comments bridge.
 */
export function staticFrame(
  title: string,
  body: string,
  appOrigin: string,
  css = '',
  bridged = false,
) {
  const bridge = bridged ? bridgeTag(appOrigin) : ''
  const html = `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${FRAME_CSS}${css}</style></head><body>${body}${bridge}</body></html>`
  return new Response(html, {
    headers: frameHeaders(bridged ? BRIDGED_CSP : STATIC_CSP, appOrigin),
  })
}

// A canvas's own HTML shown by the server without its scripts (the rendered view of its changes):
// sandboxed like a static frame, so nothing in it runs, its style sheets, fonts and images loaded
// as the viewer's frame loads them.
const UNSCRIPTED_DOCUMENT_CSP =
  "sandbox allow-popups allow-popups-to-escape-sandbox allow-downloads; default-src 'none'; style-src * data: 'unsafe-inline'; font-src * data:; img-src * data: blob:; media-src *"

/** A canvas's HTML document made on the server, served so that no script of it runs. */
export function unscriptedDocument(html: string, appOrigin: string) {
  return new Response(html, { headers: frameHeaders(UNSCRIPTED_DOCUMENT_CSP, appOrigin) })
}

/** Sandboxed, embeddable by the app's own page only. */
function frameHeaders(csp: string, appOrigin: string) {
  return new Headers({
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': `${csp}; frame-ancestors ${appOrigin}`,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    // Access is checked per request, so no cache may answer for us after it is withdrawn.
    'Cache-Control': 'no-store',
  })
}

async function renderBody(svc: Services, content: VersionContent, raw: string): Promise<string> {
  const download = `${raw}&dl=1`
  switch (content.renderer_id) {
    case 'image':
      return `<div class="media"><img src="${escapeHtml(raw)}" alt="${escapeHtml(content.title)}"></div>`
    case 'media': {
      const tag = ['mp3', 'wav', 'ogg'].includes(content.ext) ? 'audio' : 'video'
      return `<div class="media"><${tag} controls preload="metadata" src="${escapeHtml(raw)}"></${tag}></div>`
    }
    case 'download':
    case 'pdf': // the pdf renderer chosen for a file that is not a PDF
      return downloadCard(content, download)
  }
  if (content.size > MAX_RENDERED_BYTES) {
    return downloadCard(content, download, 'Too large to show here.')
  }
  const object = await svc.bucket.get(content.blob_key)
  const text = object ? await object.text() : ''
  return renderTextBody(content.renderer_id, content.ext, text, download)
}

/** Only a real PDF goes to the browser's viewer unsandboxed-by-attribute (see renderFrame). */
export function isPdfFrame(rendererId: string, ext: string): boolean {
  return rendererId === 'pdf' && contentTypeFor(ext) === 'application/pdf'
}

function downloadCard(content: VersionContent, url: string, note = '') {
  const name = fileName(content.title, content.ext)
  return `<div class="card"><div class="name">${escapeHtml(name)}</div><div class="meta">${note ? escapeHtml(note) + ' ' : ''}${formatSize(content.size)} · .${escapeHtml(content.ext)}</div><a class="button" href="${escapeHtml(url)}" target="_blank" rel="noopener">Download</a></div>`
}
