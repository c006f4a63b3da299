import { checkedBy } from '../../http/actor/steps'
import { Hono, type Context } from 'hono'
import { requestOrigin, type AppEnv } from '../../http/context'
import { clientNetworkOf, limit, limitByIp } from '../../http/limits'
import { shareToken } from '../../schema/requests'
import { openShareContent, reopenShareContent } from '../../domain/shares/public'
import { AppError } from '../../lib/errors'
import { frameUrls, liveUrl } from '../frames/links'
import { readForm } from '../forms'
import { OpenSharePage } from '../pages/open-share'
import { PasswordPage } from '../pages/password'
import { AwaitingReviewPage } from '../pages/awaiting'
import { NotApproved } from '../../domain/reviews/gate'
import { relative } from '../../lib/time'
import { FullView, Viewer, type Fact } from '../pages/viewer'
import { grantView, hasView } from './view-ticket'
import { shareComments } from './comments'
import { listComments } from '../../domain/comments/comments'
import { countRead, refusalsCounted } from '../../http/views'

// /s/:token: a share link opened in a browser. Fetching the page counts a view only of a link
// with neither password nor view limit; the others count when a person opens them (the password
// form, or the Open button of a limited link), which redirects to the page with a view cookie, so
// that a reload neither counts again nor posts the form again.
export const share = new Hono<AppEnv>()

share.use('*', limitByIp('PUBLIC_LIMITER'))

share.get('/:token', checkedBy('share', { content: true }), (c) => sharePage(c, false))
share.post('/:token', checkedBy('share', { content: true }), (c) => openShare(c, false))
// The content alone, filling the window: the same link, the same checks, its password form and
// Open button on this path too, so that they lead back to it.
share.get('/:token/full', checkedBy('share', { content: true }), (c) => sharePage(c, true))
share.post('/:token/full', checkedBy('share', { content: true }), (c) => openShare(c, true))
share.route('/', shareComments)

/** The link's own path, or its full-page view's. */
const pathOf = (token: string, full: boolean) => (full ? `/s/${token}/full` : `/s/${token}`)

async function sharePage(c: Context<AppEnv>, full: boolean) {
  const token = tokenOf(c)
  c.header('Cache-Control', 'no-store')
  if (await hasView(c, token)) {
    const again = await awaitingOr(c, token, () =>
      refusalsCounted(c, token, () => reopenShareContent(c.var.svc, token)),
    )
    return again instanceof Response ? again : viewer(c, token, again, full)
  }
  const opened = await awaitingOr(c, token, () =>
    withPasswordPage(c, pathOf(token, full), () =>
      refusalsCounted(c, token, () => openShareContent(c.var.svc, { token, requested: false })),
    ),
  )
  if (opened instanceof Response) return opened
  if (!opened.counted) {
    return c.html(
      <OpenSharePage
        action={pathOf(token, full)}
        title={opened.title}
        viewsLeft={opened.viewsLeft ?? 0}
        facts={shareFacts({ ...opened, viewsLeft: null }).map((f) => f.text)}
      />,
    )
  }
  return viewer(c, token, opened, full)
}

async function openShare(c: Context<AppEnv>, full: boolean) {
  const token = tokenOf(c)
  c.header('Cache-Control', 'no-store')
  const form = await readForm(c)
  const password = form.get('password') ?? undefined
  const opened = await withPasswordPage(c, pathOf(token, full), () =>
    refusalsCounted(c, token, () =>
      openShareContent(c.var.svc, {
        token,
        password,
        beforePasswordCheck: () =>
          limit(c.env.SHARE_PASSWORD_LIMITER, `share:${token}:${clientNetworkOf(c)}`),
      }),
    ),
  ).catch(async (err: unknown) => {
    // The password held and nothing is approved yet: the page that waits, by a GET, so that
    // its reload when a version is approved posts nothing again.
    if (!(err instanceof NotApproved)) throw err
    await grantView(c, token, !err.live)
    return c.redirect(pathOf(token, full), 303)
  })
  if (opened instanceof Response) return opened
  await grantView(c, token, opened.limited)
  return c.redirect(pathOf(token, full), 303)
}

const tokenOf = (c: Context<AppEnv>) => {
  const raw = c.req.param('token') ?? ''
  return shareToken.safeParse(raw).success ? raw : ''
}

type Opened = Awaited<ReturnType<typeof openShareContent>>

/**
 * The link opened by `open`, or its password form (posting to `action`) when the password is
 * missing or wrong.
 */
async function withPasswordPage(
  c: Context<AppEnv>,
  action: string,
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
      return c.html(<PasswordPage action={action} error={error} />, err.status)
    }
    throw err
  }
}

/**
 * The link opened by `open`, or, for a link that shows the approved version before any is, the
 * page that says so and waits for one live (409).
 */
async function awaitingOr<T>(
  c: Context<AppEnv>,
  token: string,
  open: () => Promise<T>,
): Promise<T | Response> {
  try {
    return await open()
  } catch (err) {
    if (!(err instanceof NotApproved)) throw err
    const grant = { kind: 'share', token } as const
    const live = err.live
      ? await liveUrl(c.var.svc, requestOrigin(c), err.canvasId, grant)
      : undefined
    return c.html(<AwaitingReviewPage live={live} />, 409)
  }
}

/** The viewer without owner actions, for a view that was counted (or is being shown again). */
async function viewer(c: Context<AppEnv>, token: string, opened: Opened, full: boolean) {
  const svc = c.var.svc
  countRead(c, { canvasId: opened.canvasId, version: opened.version, token })
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
  // (a limited link's page is one counted view of one version). A pinned one that allows
  // comments still hears of them.
  const follows = !opened.pinned && !opened.limited
  const hears = follows || (opened.allowComments && !opened.limited)
  const live = hears ? await liveUrl(svc, origin, opened.canvasId, grant) : undefined
  const og = { title: opened.title, type: 'article' }
  const content = {
    title: opened.title,
    rendererId: opened.rendererId,
    ext: opened.ext,
    frameSrc: frame.src,
    version: opened.version,
    live,
    og,
  }
  if (full) return c.html(<FullView {...content} live={follows ? live : undefined} />)
  // The link's readers see what visitors see: no comment newer than a pinned version, no email.
  const place = {
    workspaceId: opened.workspaceId,
    canvasId: opened.canvasId,
    visitors: true,
    upTo: opened.pinned || opened.gated ? opened.version : undefined,
  }
  const comments = opened.allowComments
    ? {
        base: `/s/${token}/comments`,
        // Resolved threads too, folded: a reader's answered question stays where they asked it.
        comments: await listComments(svc, place, { status: 'all' }),
        shown: opened.version,
        owner: false,
      }
    : undefined
  return c.html(
    <Viewer
      {...content}
      pinned={!follows}
      comments={comments}
      facts={shareFacts(opened)}
      downloadHref={frame.download}
      fullHref={`/s/${token}/full`}
    />,
  )
}

/** What a visitor may know of the link: the version it shows, its expiry, the views it has left. */
function shareFacts(opened: Opened): Fact[] {
  const shows = opened.gated
    ? 'the approved version'
    : opened.pinned
      ? 'this version only'
      : 'the latest version'
  const facts: Fact[] = [{ text: shows }]
  if (opened.expiresAt) {
    facts.push({ text: `link expires ${relative(opened.expiresAt)}`, title: opened.expiresAt })
  }
  if (opened.viewsLeft !== null) {
    facts.push({ text: opened.viewsLeft === 1 ? '1 view left' : `${opened.viewsLeft} views left` })
  }
  return facts
}
