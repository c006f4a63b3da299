import { checkedBy } from '../http/access'
import { Hono, type Context } from 'hono'
import { requestOrigin, type AppEnv } from '../http/context'
import { clientIp, limit, limitByIp } from '../http/limits'
import { shareToken } from '../schema/requests'
import { openShareContent, reopenShareContent } from '../domain/public-shares'
import { AppError } from '../lib/errors'
import { frameUrls, liveUrl } from './frame-links'
import { readForm } from './forms'
import { OpenSharePage } from './pages/open-share'
import { PasswordPage } from './pages/password'
import { relative } from './pages/relative'
import { Viewer } from './pages/viewer'
import { grantView, hasView } from './view-ticket'

// /s/:token: a share link opened in a browser. Fetching the page counts a view only of a link
// with neither password nor view limit; the others count when a person opens them (the password
// form, or the Open button of a limited link), which redirects to the page with a view cookie, so
// that a reload neither counts again nor posts the form again.
export const share = new Hono<AppEnv>()

share.use('*', limitByIp('PUBLIC_LIMITER'))

share.get('/:token', checkedBy('share'), async (c) => {
  const token = tokenOf(c)
  c.header('Cache-Control', 'no-store')
  if (await hasView(c, token)) return viewer(c, token, await reopenShareContent(c.var.svc, token))
  const opened = await withPasswordPage(c, token, () =>
    openShareContent(c.var.svc, { token, requested: false }),
  )
  if (opened instanceof Response) return opened
  if (!opened.counted) {
    return c.html(
      <OpenSharePage
        token={token}
        title={opened.title}
        viewsLeft={opened.viewsLeft ?? 0}
        facts={shareFacts({ ...opened, viewsLeft: null })}
      />,
    )
  }
  return viewer(c, token, opened)
})

share.post('/:token', checkedBy('share'), async (c) => {
  const token = tokenOf(c)
  c.header('Cache-Control', 'no-store')
  const form = await readForm(c)
  const password = form.get('password') ?? undefined
  const opened = await withPasswordPage(c, token, () =>
    openShareContent(c.var.svc, {
      token,
      password,
      beforePasswordCheck: () =>
        limit(c.env.SHARE_PASSWORD_LIMITER, `share:${token}:${clientIp(c)}`),
    }),
  )
  if (opened instanceof Response) return opened
  await grantView(c, token, opened.limited)
  return c.redirect(`/s/${token}`, 303)
})

const tokenOf = (c: Context<AppEnv>) => {
  const raw = c.req.param('token') ?? ''
  return shareToken.safeParse(raw).success ? raw : ''
}

type Opened = Awaited<ReturnType<typeof openShareContent>>

/** The link opened by `open`, or its password form when the password is missing or wrong. */
async function withPasswordPage(
  c: Context<AppEnv>,
  token: string,
  open: () => Promise<Opened>,
): Promise<Opened | Response> {
  try {
    return await open()
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
}

/** The viewer without owner actions, for a view that was counted (or is being shown again). */
async function viewer(c: Context<AppEnv>, token: string, opened: Opened) {
  const svc = c.var.svc
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
function shareFacts(opened: Opened) {
  const facts = [opened.pinned ? 'this version only' : 'the latest version']
  if (opened.expiresAt) facts.push(`link expires ${relative(opened.expiresAt)}`)
  if (opened.viewsLeft !== null) {
    facts.push(opened.viewsLeft === 1 ? '1 view left' : `${opened.viewsLeft} views left`)
  }
  return facts
}
