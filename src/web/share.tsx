import { Hono, type Context } from 'hono'
import { requestOrigin, type AppEnv } from '../http/context'
import { clientIp, limit, limitByIp } from '../http/limits'
import { shareToken } from '../schema/requests'
import { openShareContent } from '../domain/public-shares'
import { AppError } from '../lib/errors'
import { frameUrls, liveUrl } from './frame-links'
import { readForm } from './forms'
import { PasswordPage } from './pages/password'
import { relative } from './pages/relative'
import { Viewer } from './pages/viewer'

// /s/:token: a share link opened in a browser, with its password form when it has one.
export const share = new Hono<AppEnv>()

share.use('*', limitByIp('PUBLIC_LIMITER'))

share.get('/:token', (c) => shareView(c))

share.post('/:token', async (c) => {
  const form = await readForm(c)
  return shareView(c, form.get('password') ?? '')
})

/** One view of a share link: checked and counted once, then the viewer without owner actions. */
async function shareView(c: Context<AppEnv>, password?: string) {
  const svc = c.var.svc
  const raw = c.req.param('token') ?? ''
  const token = shareToken.safeParse(raw).success ? raw : ''
  c.header('Cache-Control', 'no-store')
  let opened
  try {
    opened = await openShareContent(svc, {
      token,
      password,
      beforePasswordCheck: () =>
        limit(c.env.SHARE_PASSWORD_LIMITER, `share:${token}:${clientIp(c)}`),
    })
  } catch (err) {
    if (
      err instanceof AppError &&
      (err.code === 'share_password_required' || err.code === 'share_password_invalid')
    ) {
      const error = err.code === 'share_password_invalid' ? 'Wrong password. Try again.' : undefined
      return c.html(<PasswordPage token={token} error={error} />, err.status)
    }
    throw err
  }
  // The frame and its download live while the link does; a link with a view limit gives them a
  // short window only, since they are not counted as views.
  const origin = requestOrigin(c)
  const grant = { kind: 'share', token } as const
  const frame = await frameUrls(svc, origin, {
    canvasId: opened.canvasId,
    version: opened.version,
    grant,
    limited: opened.limited,
  })
  // A link that follows the latest version follows it live; a pinned or limited one does not
  // (a limited link's page is one counted view of one version).
  const follows = !opened.pinned && !opened.limited
  return c.html(
    <Viewer
      title={opened.title}
      rendererId={opened.rendererId}
      ext={opened.ext}
      frameSrc={frame.src}
      version={opened.version}
      facts={shareFacts(opened)}
      downloadHref={frame.download}
      live={follows ? await liveUrl(svc, origin, opened.canvasId, grant) : undefined}
      og={{ title: opened.title, type: 'article' }}
    />,
  )
}

/** What a visitor may know of the link: the version it shows, its expiry, the views it has left. */
function shareFacts(opened: {
  version: number
  pinned: boolean
  viewsLeft: number | null
  expiresAt: string | null
}) {
  const facts = [opened.pinned ? 'this version only' : 'the latest version']
  if (opened.expiresAt) facts.push(`link expires ${relative(opened.expiresAt)}`)
  if (opened.viewsLeft !== null) {
    facts.push(opened.viewsLeft === 1 ? '1 view left' : `${opened.viewsLeft} views left`)
  }
  return facts
}
