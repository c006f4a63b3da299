import { contentTypeFor, fileName } from '../domain/content-types'
import { signedDownload } from '../domain/downloads'
import { constantTimeEqual, toHex } from '../domain/crypto'
import type { VersionContent } from '../domain/canvases'
import type { Services } from '../domain/services'
import { renderCode } from '../render/code'
import { renderCsv } from '../render/csv'
import { escapeHtml } from '../render/escape'
import { formatSize } from '../render/format'
import { FRAME_CSS } from '../render/frame-style'
import { renderJson } from '../render/json'
import { renderMarkdown } from '../render/markdown'
import { storageTarget } from '../storage/target'

// Content frames: the viewer embeds `/_frame/<canvas>/<version>` with a short-lived HMAC, served
// from CONTENT_URL when set. The signature is the authorization, so the frame needs no cookie; the
// response is always sandboxed (an opaque origin), scripts only for the html renderer.

export const FRAME_PATH = '/_frame'
const FRAME_TTL_SECONDS = 3600
// Text renderers read the whole file; above this they offer a download instead.
const MAX_RENDERED_BYTES = 5 * 1024 * 1024

export function frameSecret(svc: Services): string | null {
  return svc.settings.storageSigningSecret ?? svc.settings.s3?.secretAccessKey ?? null
}

export async function frameUrl(svc: Services, origin: string, canvasId: string, version: number) {
  const secret = frameSecret(svc)
  if (!secret) return null
  const exp = Math.floor(svc.now() / 1000) + FRAME_TTL_SECONDS
  // The embedding page's origin is signed in, so the frame can name it in frame-ancestors.
  const sig = await hmac(secret, `${canvasId}:${version}:${exp}:${origin}`)
  const app = encodeURIComponent(origin)
  return `${svc.settings.contentUrl ?? origin}${FRAME_PATH}/${canvasId}/${version}?exp=${exp}&app=${app}&sig=${sig}`
}

export async function verifyFrame(
  svc: Services,
  canvasId: string,
  version: string,
  query: { exp?: string; app?: string; sig?: string },
) {
  const secret = frameSecret(svc)
  const { exp = '', app = '', sig = '' } = query
  if (!secret || !/^\d{1,12}$/.test(exp) || Number(exp) * 1000 < svc.now()) return false
  return constantTimeEqual(await hmac(secret, `${canvasId}:${version}:${exp}:${app}`), sig)
}

const SCRIPTED_CSP =
  "sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads; default-src * data: blob: 'unsafe-inline' 'unsafe-eval'"
const STATIC_CSP =
  "sandbox allow-popups allow-popups-to-escape-sandbox allow-downloads; default-src 'none'; style-src 'unsafe-inline'; img-src * data: blob:; media-src *; font-src data:"

/** The frame document for one version, rendered by the canvas's renderer. */
export async function renderFrame(
  svc: Services,
  origin: string,
  appOrigin: string,
  content: VersionContent,
): Promise<Response> {
  const headers = new Headers({
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'private, max-age=300',
  })
  const frameAncestors = `; frame-ancestors ${appOrigin}`
  if (isPdfFrame(content.renderer_id, content.ext)) {
    // Chromium refuses its PDF viewer inside a sandboxed iframe; the PDF itself is served with a
    // `Content-Security-Policy: sandbox` header (local storage) or from R2's own host instead.
    const target = storageTarget(svc.settings, origin)
    const url = await signedDownload(
      svc,
      target,
      { blobKey: content.blob_key, title: content.title, ext: content.ext },
      false,
    )
    return new Response(null, {
      status: 302,
      headers: { Location: url, 'Cache-Control': 'no-store' },
    })
  }
  if (content.renderer_id === 'html') {
    const object = await svc.bucket.get(content.blob_key)
    if (!object) return new Response('not found', { status: 404 })
    headers.set('Content-Type', 'text/html; charset=utf-8')
    headers.set('Content-Security-Policy', SCRIPTED_CSP + frameAncestors)
    return new Response(object.body, { headers })
  }
  const body = await renderBody(svc, origin, content)
  headers.set('Content-Type', 'text/html; charset=utf-8')
  headers.set('Content-Security-Policy', STATIC_CSP + frameAncestors)
  const html = `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(content.title)}</title><style>${FRAME_CSS}</style></head><body>${body}</body></html>`
  return new Response(html, { headers })
}

async function renderBody(svc: Services, origin: string, content: VersionContent): Promise<string> {
  const target = storageTarget(svc.settings, origin)
  const inline = () =>
    signedDownload(
      svc,
      target,
      { blobKey: content.blob_key, title: content.title, ext: content.ext },
      false,
    )
  const attachment = () =>
    signedDownload(
      svc,
      target,
      { blobKey: content.blob_key, title: content.title, ext: content.ext },
      true,
    )
  switch (content.renderer_id) {
    case 'image':
      return `<div class="media"><img src="${escapeHtml(await inline())}" alt="${escapeHtml(content.title)}"></div>`
    case 'media': {
      const tag = ['mp3', 'wav', 'ogg'].includes(content.ext) ? 'audio' : 'video'
      return `<div class="media"><${tag} controls preload="metadata" src="${escapeHtml(await inline())}"></${tag}></div>`
    }
    case 'download':
    case 'pdf': // the pdf renderer chosen for a file that is not a PDF
      return downloadCard(content, await attachment())
  }
  if (content.size > MAX_RENDERED_BYTES) {
    return downloadCard(content, await attachment(), 'Too large to show here.')
  }
  const object = await svc.bucket.get(content.blob_key)
  const text = object ? await object.text() : ''
  try {
    switch (content.renderer_id) {
      case 'markdown':
        return renderMarkdown(text)
      case 'code':
        return renderCode(text, content.ext)
      case 'json':
        return renderJson(text)
      case 'csv':
        return renderCsv(text, content.ext)
    }
  } catch {
    // Pathological input (nesting deep enough to exhaust the stack) is shown as text, never a 500.
    return `<p class="notice">This file could not be rendered; shown as text.</p><pre class="plain">${escapeHtml(text)}</pre>`
  }
  return `<pre class="plain">${escapeHtml(text)}</pre>`
}

/** Only a real PDF goes to the browser's viewer unsandboxed-by-attribute (see renderFrame). */
export function isPdfFrame(rendererId: string, ext: string): boolean {
  return rendererId === 'pdf' && contentTypeFor(ext) === 'application/pdf'
}

function downloadCard(content: VersionContent, url: string, note = '') {
  const name = fileName(content.title, content.ext)
  return `<div class="card"><div class="name">${escapeHtml(name)}</div><div class="meta">${note ? escapeHtml(note) + ' ' : ''}${formatSize(content.size)} · .${escapeHtml(content.ext)}</div><a class="button" href="${escapeHtml(url)}" target="_blank" rel="noopener">Download</a></div>`
}

async function hmac(secret: string, message: string): Promise<string> {
  const encoder = new TextEncoder()
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(`frame:${secret}`),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  )
  return toHex(await crypto.subtle.sign('HMAC', key, encoder.encode(message)))
}
