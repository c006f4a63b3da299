import { contentTypeFor, fileName } from '../../lib/content-types'
import { escapeHtml } from '../../lib/escape'
import { formatSize } from '../../lib/format'
import type { VersionContent } from '../../domain/canvases/rows'
import { shareUrlTtl, signedDownload } from '../../domain/downloads'
import type { FrameGrant } from '../../domain/frame-access'
import type { Services } from '../../domain/services'
import { renderNotebookBody, renderTextBody, type Body } from '../../render/body'
import type { Drawing } from '../../render/budget'
import { FRAME_CSS } from '../../render/frame-style'
import { languageInTail, NOTEBOOK_TAIL } from '../../render/notebook-language'
import { storageTarget } from '../../storage/target'
import { BRIDGE_HASH, BRIDGE_JS, DRAW } from '../asset-urls'

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
// Mermaid is an ES module whose diagram types are chunks of their own, loaded as they are needed
// (scripts/draw-assets.mjs): its frames allow the folder of the drawing libraries, every file of
// which is the deployment's own and named by its bytes.
const DRAW_FOLDER = DRAW.mermaid.slice(0, DRAW.mermaid.lastIndexOf('/') + 1)
const allowed = (drawing: Drawing) => (drawing === 'mermaid' ? DRAW_FOLDER : DRAW[drawing])

// A rendered frame runs the comments bridge (assets/frame-bridge.ts), which tells the page what is
// selected or clicked and shows the comments' highlights, and the drawing scripts of what its body
// holds (render/drawing.ts): the bridge by its hash, each drawing script by its exact URL on the
// frame's own origin (Mermaid's by its folder, above), and nothing else, so nothing of the content
// runs. The page's sandbox decides whether even these do (viewer.tsx).
function bridgedCsp(drawing: Drawing[], origin: string) {
  const urls = drawing.map((d) => ` ${origin}${allowed(d)}`).join('')
  const sheet = drawing.includes('math') ? ` ${origin}${DRAW.mathCss}` : ''
  return STATIC_CSP.replace('sandbox ', 'sandbox allow-scripts ')
    .replace("default-src 'none';", `default-src 'none'; script-src '${BRIDGE_HASH}'${urls};`)
    .replace("style-src 'unsafe-inline'", `style-src 'unsafe-inline'${sheet}`)
}

/** The tags that load a body's drawing scripts (and KaTeX's stylesheet) from `origin`. */
function drawingTags(drawing: Drawing[], origin: string) {
  const sheet = drawing.includes('math')
    ? `<link rel="stylesheet" href="${escapeHtml(origin + DRAW.mathCss)}">`
    : ''
  const tag = (d: Drawing) =>
    `<script${d === 'mermaid' ? ' type="module"' : ''} src="${escapeHtml(origin + DRAW[d])}"></script>`
  return sheet + drawing.map(tag).join('')
}

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
  urls: { appOrigin: string; raw: string; origin: string },
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
  const drawing = body.draws.length > 0 ? { draws: body.draws, origin: urls.origin } : undefined
  return staticFrame(content.title, body.html, urls.appOrigin, '', { drawing })
}

/**
 * A frame document rendered on the server (`css` added to its style): it runs no script but,
 * when `bridged`, the comments bridge and the `drawing` scripts of its body, from `origin`.
 */
export function staticFrame(
  title: string,
  body: string,
  appOrigin: string,
  css = '',
  bridged?: { drawing?: { draws: Drawing[]; origin: string } },
) {
  const draws = bridged?.drawing?.draws ?? []
  const origin = bridged?.drawing?.origin ?? ''
  const tail = bridged ? drawingTags(draws, origin) + bridgeTag(appOrigin) : ''
  const html = `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${FRAME_CSS}${css}</style></head><body>${body}${tail}</body></html>`
  return new Response(html, {
    headers: frameHeaders(bridged ? bridgedCsp(draws, origin) : STATIC_CSP, appOrigin),
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

async function renderBody(svc: Services, content: VersionContent, raw: string): Promise<Body> {
  const download = `${raw}&dl=1`
  const only = (html: string): Body => ({ html, draws: [] })
  switch (content.renderer_id) {
    case 'image':
      return only(
        `<div class="media"><img src="${escapeHtml(raw)}" alt="${escapeHtml(content.title)}"></div>`,
      )
    case 'media': {
      const tag = ['mp3', 'wav', 'ogg'].includes(content.ext) ? 'audio' : 'video'
      return only(
        `<div class="media"><${tag} controls preload="metadata" src="${escapeHtml(raw)}"></${tag}></div>`,
      )
    }
    case 'download':
    case 'pdf': // the pdf renderer chosen for a file that is not a PDF
      return only(downloadCard(content, download))
    case 'notebook':
      return notebookBody(svc, content, download)
  }
  if (content.size > MAX_RENDERED_BYTES) {
    return only(downloadCard(content, download, 'Too large to show here.'))
  }
  const object = await svc.bucket.get(content.blob_key)
  const text = object ? await object.text() : ''
  return renderTextBody(content.renderer_id, content.ext, text, download)
}

/**
 * A notebook, streamed from storage into its renderer whatever its size (the renderer stops at the
 * frame's budget); its language read first from its end, where Jupyter writes its metadata. One
 * no larger than that end is read once, whole.
 */
async function notebookBody(svc: Services, content: VersionContent, download: string) {
  if (content.size <= NOTEBOOK_TAIL) {
    const object = await svc.bucket.get(content.blob_key)
    return renderTextBody('notebook', content.ext, object ? await object.text() : '', download)
  }
  const tail = await svc.bucket.get(content.blob_key, { range: { suffix: NOTEBOOK_TAIL } })
  const language = tail ? languageInTail(await tail.text()) : null
  const object = await svc.bucket.get(content.blob_key)
  return renderNotebookBody({ chunks: object ? object.body : [], language }, download)
}

/** Only a real PDF goes to the browser's viewer unsandboxed-by-attribute (see renderFrame). */
export function isPdfFrame(rendererId: string, ext: string): boolean {
  return rendererId === 'pdf' && contentTypeFor(ext) === 'application/pdf'
}

function downloadCard(content: VersionContent, url: string, note = '') {
  const name = fileName(content.title, content.ext)
  return `<div class="card"><div class="name">${escapeHtml(name)}</div><div class="meta">${note ? escapeHtml(note) + ' ' : ''}${formatSize(content.size)} · .${escapeHtml(content.ext)}</div><a class="button" href="${escapeHtml(url)}" target="_blank" rel="noopener">Download</a></div>`
}
