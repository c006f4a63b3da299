import { checkedBy } from '../http/actor/steps'
import { Hono } from 'hono'
import { shareUrlTtl, signedDownload } from '../domain/downloads'
import { openShareContent, shareMetadata } from '../domain/shares/public'
import { countRead, refusalsCounted } from '../http/views'
import { PASSWORD, shareAccess, UNUSABLE } from '../http/actor/share'
import { shareComments } from './share-comments'
import { storageTarget } from '../storage/target'
import { requestOrigin, type AppContext, type AppEnv } from '../http/context'
import { limitByIp } from '../http/limits'
import { downloadQuery, linkInPath, linkItemInPath, type DownloadQuery } from '../schema/requests'
import { params, query } from '../http/validate'
import { documented } from '../http/route-docs'

// The public side of share links: no API key, only the token (and the password when set).
export const publicShares = new Hono<AppEnv>()

publicShares.use('*', limitByIp('PUBLIC_LIMITER'), async (c, next) => {
  await next()
  // Each answer depends on a live count and maybe a password: never stored by a cache.
  c.header('Cache-Control', 'no-store')
})

// A link's comments, under the same limit and headers as the rest of the link's routes.
publicShares.route('/', shareComments)

const SHARE_REDIRECT = {
  302: {
    description: 'To a signed storage URL that lives at most a minute.',
    headers: { Location: 'The signed URL.' },
  },
}

publicShares.get(
  '/:token',
  checkedBy('share'),
  params(linkInPath),
  documented({
    summary: 'A share link’s metadata',
    description: 'What the link shows; never counts a view.',
    tag: 'Public shares',
    headers: [PASSWORD],
    responses: { 200: { description: 'The canvas and link.', schema: 'publicShare' } },
    errors: [...UNUSABLE],
  }),
  async (c) => c.json(await shareMetadata(c.var.svc, shareAccess(c, c.req.valid('param').token))),
)

publicShares.get(
  '/:token/content',
  checkedBy('share', { content: true }),
  params(linkInPath),
  query(downloadQuery),
  documented({
    summary: 'Download through a share link',
    description: 'Counts one view. `dl=1` asks for an attachment.',
    tag: 'Public shares',
    headers: [PASSWORD],
    responses: SHARE_REDIRECT,
    errors: [...UNUSABLE, 'storage_not_configured'],
  }),
  async (c) => shareDownload(c, c.req.valid('query'), c.req.valid('param')),
)

publicShares.get(
  '/:token/content/:path{.+}',
  checkedBy('share', { content: true }),
  params(linkItemInPath),
  query(downloadQuery),
  documented({
    summary: 'Download a file of a site through a share link',
    description:
      'The file at `path` of the version the link shows. Counts one view; a path the version ' +
      'does not hold answers 404 and costs none.',
    tag: 'Public shares',
    headers: [PASSWORD],
    responses: SHARE_REDIRECT,
    errors: [...UNUSABLE, 'not_found', 'storage_not_configured'],
  }),
  async (c) => shareDownload(c, c.req.valid('query'), c.req.valid('param')),
)

/** A link revoked, expired or used up reaches its bytes no longer than this URL lives. */
async function shareDownload(
  c: AppContext,
  { dl }: DownloadQuery,
  { token, path }: { token: string; path?: string },
) {
  const content = await refusalsCounted(c, token, () =>
    openShareContent(c.var.svc, shareAccess(c, token), path),
  )
  countRead(c, { canvasId: content.canvasId, version: content.version, token })
  const target = storageTarget(c.var.svc.settings, requestOrigin(c))
  const attachment = dl === '1' || dl === 'true'
  const url = await signedDownload(c.var.svc, target, content, attachment, shareUrlTtl(c.var.svc))
  return c.redirect(url, 302)
}
