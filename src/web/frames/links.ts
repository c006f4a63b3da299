import { constantTimeEqual, hmacHex } from '../../lib/crypto'
import { decodeGrant, encodeGrant, type FrameGrant } from '../../domain/frame-access'
import type { Services } from '../../domain/services'
import { secretFor } from '../../lib/settings'

// Content frames: the viewer embeds `/_frame/<canvas>/<version>` with a short-lived HMAC, served
// from CONTENT_URL when set. The signature names the access the frame was issued under (the
// owner's session, a public canvas, a share link), and that access is checked again on every
// request (domain/frame-access): the frame needs no cookie, and withdrawn access ends it at once.
// The response is always sandboxed (an opaque origin), scripts only for the html renderer. Bytes
// the frame shows (images, media, PDFs, downloads) come through `<frame>/raw`, checked the same
// way, which redirects to a short-lived signed storage URL.

export const FRAME_PATH = '/_frame'
export const FRAME_TTL_SECONDS = 3600
/**
 * A frame of a link with a view limit lives only this long: frame loads are not views, so this is
 * the window in which the view that used the link up can still be reloaded (SECURITY.md).
 */
export const LIMITED_FRAME_SECONDS = 60

export type FrameLink = {
  canvasId: string
  version: number
  grant: FrameGrant
  /** A share link with max_views: the frame lives LIMITED_FRAME_SECONDS. */
  limited?: boolean
}

/**
 * The frame's URL and its download URL, for a page on `origin`; and `site`, where the files of a
 * site's version are served by path (`site + 'img/a.png'`) under the same signature.
 */
export async function frameUrls(svc: Services, origin: string, link: FrameLink) {
  const ttl = link.limited ? LIMITED_FRAME_SECONDS : FRAME_TTL_SECONDS
  const query = await signedQuery(svc, origin, link.canvasId, String(link.version), link.grant, ttl)
  const base = `${svc.settings.contentUrl ?? origin}${FRAME_PATH}/${link.canvasId}/${link.version}`
  return {
    src: `${base}?${query}`,
    download: `${base}/raw?${query}&dl=1`,
    site: `${base}${SITE_SEGMENT}/${siteTokenOf(query)}/`,
  }
}

/**
 * The rendered view of the changes between two versions (the owner's diff page), at
 * `<frame path>/<canvas>/<from>-<to>/changes`: signed like a frame, the pair in the place of the
 * version, so the URL opens that comparison and no version on its own.
 */
export async function changesFrameUrl(
  svc: Services,
  origin: string,
  canvasId: string,
  pair: { from: number; to: number },
  grant: FrameGrant,
) {
  const versions = `${pair.from}-${pair.to}`
  const query = await signedQuery(svc, origin, canvasId, versions, grant, FRAME_TTL_SECONDS)
  const base = svc.settings.contentUrl ?? origin
  return `${base}${FRAME_PATH}/${canvasId}/${versions}${CHANGES_SEGMENT}?${query}`
}

export const CHANGES_SEGMENT = '/changes'

/**
 * A site is served below `<frame>/site/<token>/`, the token being the frame's signed query in one
 * path segment: a page's relative URLs (`style.css`, `../img/a.png`, `fetch('data.json')`) resolve
 * against the path and drop the query, so the signature must travel in the path. It covers the
 * canvas and version, not the file: one token opens every file of that version and nothing else.
 */
export const SITE_SEGMENT = '/site'

export const siteTokenOf = (query: string) =>
  btoa(query).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')

/** The signed query a site token carries, or null when it is not one. */
export function readSiteToken(token: string): Record<string, string> | null {
  if (!/^[A-Za-z0-9_-]{1,1024}$/.test(token)) return null
  try {
    const query = atob(token.replace(/-/g, '+').replace(/_/g, '/'))
    return Object.fromEntries(new URLSearchParams(query))
  } catch {
    return null
  }
}

/** A site's path as a URL path: each segment percent-encoded. */
export const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/')

/**
 * The live link of a page (web/frames/live.ts): its socket and the frames of versions that land while it
 * is open, under the page's own grant. Signed like a frame URL, its "version" being `live`; it
 * lives a day, since a page may stay open that long, and its grant is checked at each use.
 */
export async function liveUrl(svc: Services, origin: string, canvasId: string, grant: FrameGrant) {
  const query = await signedQuery(svc, origin, canvasId, LIVE_VERSION, grant, LIVE_TTL_SECONDS)
  return `${origin}${LIVE_PATH}/${canvasId}?${query}`
}

/**
 * `g&exp&app&sig`: the grant, an expiry `ttl` seconds away and the embedding page's origin, signed
 * with the canvas and version (the origin is signed in, so a frame can name it in frame-ancestors).
 */
function signedQuery(
  svc: Services,
  origin: string,
  canvasId: string,
  version: string,
  grant: FrameGrant,
  ttl: number,
): Promise<string> {
  // Read before anything is awaited: a missing secret fails the caller at once, by name.
  const secret = secretFor('FRAME_SIGNING_SECRET', svc.settings.frameSigningSecret)
  const exp = Math.floor(svc.now() / 1000) + ttl
  const g = encodeGrant(grant)
  return hmacHex(secret, frameMessage(canvasId, version, g, exp, origin)).then(
    (sig) => `g=${encodeURIComponent(g)}&exp=${exp}&app=${encodeURIComponent(origin)}&sig=${sig}`,
  )
}

export const LIVE_PATH = '/_live'
export const LIVE_VERSION = 'live'
const LIVE_TTL_SECONDS = 24 * 3600

/** The grant a frame URL was signed with, or null when the URL is not one we signed or expired. */
export async function verifyFrame(
  svc: Services,
  canvasId: string,
  version: string,
  query: { g?: string; exp?: string; app?: string; sig?: string },
): Promise<FrameGrant | null> {
  const { g = '', exp = '', app = '', sig = '' } = query
  const secret = svc.settings.frameSigningSecret
  // Without a secret no frame URL was ever made: every one is refused.
  if (!secret || !/^\d{1,12}$/.test(exp) || Number(exp) * 1000 < svc.now()) return null
  const expected = await hmacHex(secret, frameMessage(canvasId, version, g, Number(exp), app))
  return constantTimeEqual(expected, sig) ? decodeGrant(g) : null
}

const frameMessage = (id: string, version: string, grant: string, exp: number, app: string) =>
  `${id}:${version}:${grant}:${exp}:${app}`
