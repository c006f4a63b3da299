import { checkedBy, open } from '../../http/actor/steps'
import { Hono, type Context } from 'hono'
import type { Settings } from '../../lib/settings'
import { requestOrigin, type AppEnv } from '../../http/context'
import { id as idSchema } from '../../schema/requests'
import { contentUnderGrant, itemUnderGrant } from '../../domain/frame-access'
import { AppError } from '../../lib/errors'
import { escapeHtml } from '../../lib/escape'
import { limit, limitByIp } from '../../http/limits'
import { CHANGES_CSS, renderHtmlChanges, renderMarkdownChanges } from '../../render/changes'
import {
  isPdfFrame,
  renderFrame,
  staticFrame,
  storageRedirect,
  unscriptedDocument,
} from './content'
import {
  CHANGES_SEGMENT,
  encodePath,
  FRAME_PATH,
  readSiteToken,
  SITE_SEGMENT,
  siteTokenOf,
  verifyFrame,
} from './links'
import { siteFile, siteNotFound, sitePreflight } from './site-content'

// Content frames, mounted at FRAME_PATH. Public routes: the signature is the credential, and the
// access it names is checked again on every request.
export const frames = new Hono<AppEnv>()

// A frame (and its bytes) counts against FRAME_LIMITER; the files a site's page loads, against a
// budget of their own.
const framesLimit = limitByIp('FRAME_LIMITER')
const siteLimit = limitByIp('SITE_LIMITER')
frames.use('*', (c, next) =>
  (c.req.path.includes(`${SITE_SEGMENT}/`) ? siteLimit : framesLimit)(c, next),
)

// FRAME_FETCH=own: a frame fetches nothing from outside the deployment. Every source a frame's
// policy allows from anywhere (`*`) becomes the frame's own origin and the storage its bytes are
// signed for: an image in a Markdown report, a Vega image mark, a page's script from a CDN are
// refused by the browser.
frames.use('*', async (c, next) => {
  await next()
  const policy = c.res.headers.get('Content-Security-Policy')
  if (c.var.svc.settings.frameFetch !== 'own' || !policy) return
  const own = ownSources(c.var.svc.settings, new URL(c.req.url).origin)
  // Every frame's answer is made here, its headers ours to change (a new Response would have
  // Hono copy the old policy back over the new one).
  c.res.headers.set('Content-Security-Policy', policy.replace(ANYWHERE, `$1${own}`))
})

const ANYWHERE = /(^|\s)\*(?=\s|;|$)/g

/** The frame's own origin and, when its bytes are signed for another, that storage's. */
function ownSources(settings: Settings, origin: string) {
  const storage = settings.s3 ? new URL(settings.s3.endpoint).origin : origin
  return storage === origin ? origin : `${origin} ${storage}`
}

// A site's scripts may ask with a preflight (a fetch with a JSON Content-Type): any origin may read,
// nothing is sent with credentials. Only for what could be a site's address.
frames.options(`/:id/:version${SITE_SEGMENT}/*`, open, (c) => {
  const { id, version } = c.req.param()
  if (!/^\d{1,9}$/.test(version ?? '') || !idSchema.safeParse(id).success) {
    throw new AppError('not_found', 'not found')
  }
  return sitePreflight()
})

frames.get('/:id/:version', checkedBy('signed', { content: true }), async (c) => {
  const { content, grant } = await frameContent(c)
  // A site: its files are served by path, below a URL that carries the signature in its path.
  if (content.item_count > 1) {
    const query = new URL(c.req.url).search.slice(1)
    const { id, version } = c.req.param()
    const token = siteTokenOf(query)
    return c.redirect(
      `${FRAME_PATH}/${id}/${version}${SITE_SEGMENT}/${token}/${encodePath(content.main_path)}`,
      302,
    )
  }
  if (isPdfFrame(content.renderer_id, content.ext)) {
    // Chromium refuses its PDF viewer inside a sandboxed iframe; the PDF itself is served with a
    // `Content-Security-Policy: sandbox` header (local storage) or from R2's own host instead.
    return storageRedirect(c.var.svc, requestOrigin(c), content, grant, false)
  }
  const raw = new URL(c.req.url)
  raw.pathname += '/raw'
  return renderFrame(c.var.svc, content, {
    appOrigin: c.req.query('app') ?? '',
    raw: raw.href,
    origin: raw.origin,
  })
})

frames.get('/:id/:version/raw', checkedBy('signed', { content: true }), async (c) => {
  const { content, grant } = await frameContent(c)
  const attachment = c.req.query('dl') === '1'
  return storageRedirect(c.var.svc, requestOrigin(c), content, grant, attachment)
})

// A site's address, and a file under it: two routes, since a path that may be empty (`{.*}`) is a
// pattern Hono's quickest router (its RegExpRouter) does not take beside the frame's other routes.
for (const route of [
  `/:id/:version${SITE_SEGMENT}/:token/`,
  `/:id/:version${SITE_SEGMENT}/:token/:path{.+}`,
] as const) {
  frames.get(route, checkedBy('signed', { content: true }), async (c) => {
    const { id, version, token } = c.req.param()
    const svc = c.var.svc
    const query = readSiteToken(token ?? '')
    const grant = query ? await checkedGrant(c, id, version, query) : null
    if (!grant) throw forbidden()
    const app = query!.app ?? ''
    // A folder's own page, as static hosts serve it: `docs/` is `docs/index.html`.
    // The site's own address (the first route) has no path.
    const asked = c.req.param('path') ?? ''
    let path = asked
    if (path === '' || path.endsWith('/')) path += 'index.html'
    const found = await itemUnderGrant(svc, grant, id!, Number(version), path)
    // The site's own address opens its main file, wherever that is.
    if (asked === '' && found.main_path !== path) {
      return c.redirect(encodePath(found.main_path), 302)
    }
    if (path === found.main_path && found.renderer_id !== 'html') {
      const raw = `${FRAME_PATH}/${id}/${version}/raw?${new URLSearchParams(query!)}`
      // A PDF goes to the browser's own viewer (see the frame route); any other main file is
      // shown by its renderer, so a Markdown report's relative images load from the site.
      if (isPdfFrame(found.renderer_id, found.ext)) return c.redirect(raw, 302)
      return renderFrame(svc, found, { appOrigin: app, raw, origin: new URL(c.req.url).origin })
    }
    if (!found.item) return siteNotFound(path, app)
    return siteFile(svc, found.item, path, c.req.raw, app)
  })
}

// The rendered view of the diff page, for the owner only: its diff is bounded like the page's, and
// comes out of the same budget of diffs per session (DIFF_LIMITER).
frames.get(`/:id/:pair${CHANGES_SEGMENT}`, checkedBy('signed', { content: true }), async (c) => {
  const { id, pair } = c.req.param()
  const versions = /^([1-9]\d{0,8})-([1-9]\d{0,8})$/.exec(pair ?? '')
  const valid = versions && idSchema.safeParse(id).success
  const grant = valid ? await verifyFrame(c.var.svc, id!, pair!, c.req.query()) : null
  if (grant?.kind !== 'owner') throw forbidden()
  await limit(c.env.DIFF_LIMITER, `session:${grant.sessionId}`)
  const [from, to] = [Number(versions![1]), Number(versions![2])]
  // The diff library loads with the first comparison, not with the Worker.
  const { renderedDiff } = await import('../../domain/diff/rendered')
  const diff = await renderedDiff(c.var.svc, grant, id!, from, to)
  const app = c.req.query('app') ?? ''
  if (diff.kind === 'html') return unscriptedDocument(renderHtmlChanges(diff.pieces), app)
  const body =
    diff.kind === 'markdown'
      ? await renderMarkdownChanges(diff.pieces)
      : `<p class="notice">These versions cannot be shown rendered: ${escapeHtml(diff.reason)}.</p>`
  return staticFrame(`${diff.title}: v${from} → v${to}`, body, app, CHANGES_CSS)
})

/** The version a frame URL shows, if its signature holds and its access still does. */
async function frameContent(c: Context<AppEnv>) {
  const { id, version } = c.req.param()
  const svc = c.var.svc
  const grant = await checkedGrant(c, id, version, c.req.query())
  if (!grant) throw forbidden()
  return { content: await contentUnderGrant(svc, grant, id!, Number(version)), grant }
}

/** The grant a frame's signature names; null when the URL is not one we signed, or expired. */
async function checkedGrant(
  c: Context<AppEnv>,
  id: string | undefined,
  version: string | undefined,
  query: Record<string, string>,
) {
  // The id is part of the signed message: one that cannot be an id is refused before it is read.
  if (!/^\d{1,9}$/.test(version ?? '') || !idSchema.safeParse(id).success) return null
  return verifyFrame(c.var.svc, id!, version!, query)
}

const forbidden = () =>
  new AppError('forbidden', 'this content link is invalid or has expired; reload the page')
