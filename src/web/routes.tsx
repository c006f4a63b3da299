import { Hono, type Context } from 'hono'
import { deleteCookie, getCookie } from 'hono/cookie'
import { createMiddleware } from 'hono/factory'
import { canvasIdParam, requestOrigin, type AppEnv } from '../http/context'
import { isHttps, sameOrigin, SESSION_COOKIE, startSession } from '../http/auth'
import { clientIp, limit, limitByIp } from '../http/limits'
import {
  createKeyBody,
  createShareBody,
  credentialsBody,
  ext as extSchema,
  id as idSchema,
  listQuery,
  loginBody,
  shareToken,
  updateCanvasBody,
} from '../http/schemas'
import { parse, readBytes } from '../http/validate'
import {
  deleteCanvas,
  findVersionContent,
  findViewable,
  hasAnyUser,
  listCanvases,
  makePermanent,
  updateCanvas,
} from '../domain/canvases'
import { constantTimeEqual, hmacHex } from '../lib/crypto'
import type { Services } from '../domain/services'
import { signedDownload } from '../domain/downloads'
import { createKey, listKeys, revokeKey } from '../domain/keys'
import { contentUnderGrant } from '../domain/frame-access'
import { openShareContent } from '../domain/public-shares'
import { createShare, revokeShares } from '../domain/shares'
import { workspaceUsage } from '../domain/usage'
import {
  endSession,
  login,
  resolveSession,
  sessionActor,
  signup,
  type SessionInfo,
} from '../domain/users'
import { AppError, validationError } from '../lib/errors'
import { storageTarget } from '../storage/target'
import { APP_CSS, APP_JS } from './assets'
import {
  FRAME_PATH,
  frameUrls,
  isPdfFrame,
  renderFrame,
  storageRedirect,
  verifyFrame,
} from './frames'
import { AuthPage, ConfirmDelete, Dashboard, ErrorPage, Settings } from './pages'
import { PasswordPage, Viewer } from './viewer'

// The web app: server-rendered pages that work without JavaScript. Forms post back to these
// routes; every post must come from our own origin and carry the session's CSRF token.

// Pages: strict CSP (content frames come from CONTENT_URL or this origin), never framed.
const pageHeaders = createMiddleware<AppEnv>(async (c, next) => {
  await next()
  // Pages and the redirects of their forms depend on the session: no cache may keep them.
  if (!c.res.headers.get('Cache-Control')) c.header('Cache-Control', 'no-store')
  if (!c.res.headers.get('Content-Type')?.startsWith('text/html')) return
  // Frames come from CONTENT_URL (or here); a PDF frame redirects to R2 itself in S3 mode.
  const settings = c.var.svc.settings
  const storage = settings.s3 ? ` ${new URL(settings.s3.endpoint).origin}` : ''
  const frames = (settings.contentUrl ?? "'self'") + storage
  c.header(
    'Content-Security-Policy',
    `default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-src ${frames}; ` +
      "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  )
  c.header('X-Frame-Options', 'DENY')
  c.header('Referrer-Policy', 'same-origin')
})

const loadSession = createMiddleware<AppEnv>(async (c, next) => {
  const token = getCookie(c, SESSION_COOKIE)
  const session = token ? await resolveSession(c.var.svc, token) : null
  if (session) c.set('session', session)
  await next()
})

export const web = new Hono<AppEnv>()
const PAGE_SIZE = 20

web.get('/assets/app.css', (c) => asset(c, APP_CSS, 'text/css; charset=utf-8'))
web.get('/assets/app.js', (c) => asset(c, APP_JS, 'text/javascript; charset=utf-8'))

// Frames are public routes (the signature is the credential): limited per client like the others.
web.use(`${FRAME_PATH}/*`, limitByIp('FRAME_LIMITER'))

web.get(`${FRAME_PATH}/:id/:version`, async (c) => {
  const { content, grant } = await frameContent(c)
  if (isPdfFrame(content.renderer_id, content.ext)) {
    // Chromium refuses its PDF viewer inside a sandboxed iframe; the PDF itself is served with a
    // `Content-Security-Policy: sandbox` header (local storage) or from R2's own host instead.
    return storageRedirect(c.var.svc, requestOrigin(c), content, grant, false)
  }
  const raw = new URL(c.req.url)
  raw.pathname += '/raw'
  return renderFrame(c.var.svc, content, { appOrigin: c.req.query('app') ?? '', raw: raw.href })
})

web.get(`${FRAME_PATH}/:id/:version/raw`, async (c) => {
  const { content, grant } = await frameContent(c)
  const attachment = c.req.query('dl') === '1'
  return storageRedirect(c.var.svc, requestOrigin(c), content, grant, attachment)
})

/** The version a frame URL shows, if its signature holds and its access still does. */
async function frameContent(c: Context<AppEnv>) {
  const { id, version } = c.req.param()
  const svc = c.var.svc
  // The id is part of the signed message: one that cannot be an id is refused before it is read.
  const grant =
    /^\d{1,9}$/.test(version ?? '') && idSchema.safeParse(id).success
      ? await verifyFrame(svc, id ?? '', version!, c.req.query())
      : null
  if (!grant) {
    throw new AppError('forbidden', 'this content link is invalid or has expired; reload the page')
  }
  return { content: await contentUnderGrant(svc, grant, id!, Number(version)), grant }
}

web.use('*', pageHeaders, loadSession, sameOrigin)

web.get('/', async (c) => {
  const svc = c.var.svc
  const session = c.get('session') as SessionInfo | undefined
  if (!session) return c.redirect((await hasAnyUser(svc)) ? '/login' : '/signup')
  const page = Math.max(1, Math.min(100_000, Number(c.req.query('page')) || 1))
  // Filters are links a person edits: one that does not pass the API's rule is simply dropped.
  const ext = c.req.query('type')?.toLowerCase().replace(/^\./, '')
  const validExt = extSchema.safeParse(ext).success ? ext : undefined
  const wanted = listQuery.safeParse({ visibility: c.req.query('visibility') })
  const visibility = wanted.success ? wanted.data.visibility : undefined
  const result = await listCanvases(svc, sessionActor(session), {
    ext: validExt,
    visibility,
    limit: PAGE_SIZE + 1,
    offset: (page - 1) * PAGE_SIZE,
  })
  const shared = c.req.query('shared')
  const flash = shared && shareToken.safeParse(shared).success && (
    <div class="success" role="status">
      Share link: <code id="share-url">{`${requestOrigin(c)}/s/${shared}`}</code>{' '}
      <button type="button" data-copy="share-url">
        Copy
      </button>
    </div>
  )
  return c.html(
    <Dashboard
      user={session.user}
      csrf={await csrfToken(c.var.svc, session)}
      canvases={result.canvases.slice(0, PAGE_SIZE)}
      filters={{ ext: validExt, visibility }}
      page={page}
      hasMore={result.canvases.length > PAGE_SIZE}
      flash={flash || undefined}
      webOrigin={requestOrigin(c)}
    />,
  )
})

web.get('/signup', async (c) => {
  if (c.get('session')) return c.redirect('/')
  return c.html(<AuthPage mode="signup" />)
})

web.post('/signup', limitByIp('AUTH_LIMITER'), async (c) => {
  const form = await readForm(c)
  const email = form.get('email') ?? ''
  const checked = credentialsBody.safeParse({ email, password: form.get('password') ?? '' })
  if (!checked.success) {
    return c.html(<AuthPage mode="signup" email={email} error={sentence(checked.error)} />, 400)
  }
  try {
    const result = await signup(c.var.svc, checked.data)
    startSession(c, result.sessionToken, result.expiresAt)
    return c.redirect('/')
  } catch (err) {
    if (!(err instanceof AppError)) throw err
    const message =
      err.code === 'signup_closed'
        ? 'Signup is closed on this server.'
        : err.message.replace(/^email: /, '')
    return c.html(<AuthPage mode="signup" email={email} error={message} />, err.status)
  }
})

web.get('/login', async (c) => {
  if (c.get('session')) return c.redirect('/')
  if (!(await hasAnyUser(c.var.svc))) return c.redirect('/signup')
  return c.html(<AuthPage mode="login" next={safeNext(c.req.query('next'))} />)
})

web.post('/login', limitByIp('AUTH_LIMITER'), async (c) => {
  const form = await readForm(c)
  const email = form.get('email') ?? ''
  const next = safeNext(form.get('next') ?? undefined)
  const checked = loginBody.safeParse({ email, password: form.get('password') ?? '' })
  if (!checked.success) {
    const error = sentence(checked.error)
    return c.html(<AuthPage mode="login" email={email} next={next} error={error} />, 400)
  }
  try {
    const result = await login(c.var.svc, checked.data)
    startSession(c, result.sessionToken, result.expiresAt)
    return c.redirect(next ?? '/')
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'unauthorized') throw err
    return c.html(
      <AuthPage mode="login" email={email} next={next} error="Wrong email or password." />,
      401,
    )
  }
})

web.get('/logout', async (c) => {
  const session = c.get('session') as SessionInfo | undefined
  if (!session) return c.redirect('/login')
  return c.html(
    <ErrorPage
      status={200}
      title="Log out?"
      message="Use the Log out button above to end this session."
      user={session.user}
    />,
  )
})

web.post('/logout', async (c) => {
  const token = getCookie(c, SESSION_COOKIE)
  if (token) await endSession(c.var.svc, token)
  deleteCookie(c, SESSION_COOKIE, { path: '/', secure: isHttps(c) })
  return c.redirect('/login')
})

web.get('/settings', async (c) => {
  const session = await requirePageSession(c)
  if (session instanceof Response) return session
  return renderSettings(c, session)
})

web.post('/settings/keys', async (c) => {
  const session = await requirePageSession(c)
  if (session instanceof Response) return session
  const form = await checkedForm(c, session)
  // The form's access choice names the API's scopes: write implies read.
  const scope = form.get('scope') ?? 'write'
  const checked = createKeyBody.safeParse({
    name: (form.get('name') ?? '').trim(),
    scopes: scope === 'write' ? ['read', 'write'] : [scope],
  })
  if (!checked.success) {
    return renderSettings(c, session, { error: sentence(checked.error) }, 400)
  }
  const { name, scopes } = checked.data
  const created = await createKey(
    c.var.svc,
    sessionActor(session),
    name,
    scopes ?? ['read', 'write'],
  )
  return renderSettings(c, session, { created: { key: created.key, name } })
})

web.post('/settings/keys/:keyId/revoke', async (c) => {
  const session = await requirePageSession(c)
  if (session instanceof Response) return session
  await checkedForm(c, session)
  const keyId = c.req.param('keyId')
  if (idSchema.safeParse(keyId).success) {
    await revokeKey(c.var.svc, sessionActor(session), keyId).catch((err) => {
      if (!(err instanceof AppError)) throw err
    })
  }
  return c.redirect('/settings')
})

web.get('/c/:id/delete', async (c) => {
  const session = await requirePageSession(c)
  if (session instanceof Response) return session
  const view = await findViewable(c.var.svc, canvasIdParam(c), session.workspace.workspace_id)
  if (!view?.isOwner) throw new AppError('canvas_not_found', 'canvas not found')
  return c.html(
    <ConfirmDelete
      user={session.user}
      csrf={await csrfToken(c.var.svc, session)}
      canvas={view.canvas}
    />,
  )
})

web.post('/c/:id/:action{permanent|visibility|share|unshare|delete}', async (c) => {
  const session = await requirePageSession(c)
  if (session instanceof Response) return session
  const form = await checkedForm(c, session)
  const svc = c.var.svc
  const actor = sessionActor(session)
  const canvasId = canvasIdParam(c)
  switch (c.req.param('action')) {
    case 'permanent':
      await makePermanent(svc, actor, canvasId)
      break
    case 'visibility':
      await updateCanvas(
        svc,
        actor,
        canvasId,
        parse(updateCanvasBody, formFields(form, ['visibility'])),
      )
      break
    case 'unshare':
      await revokeShares(svc, actor, canvasId)
      break
    case 'delete':
      await deleteCanvas(svc, actor, canvasId)
      break
    case 'share': {
      const input = parse(createShareBody, formFields(form, ['expires_in', 'password']))
      const link = await createShare(svc, actor, canvasId, input)
      if (form.get('back') === 'viewer') return c.redirect(`/c/${canvasId}?shared=${link.token}`)
      return c.redirect(`/?shared=${link.token}#canvas-${canvasId}`)
    }
  }
  return c.redirect(`/#canvas-${canvasId}`)
})

web.get('/c/:id', async (c) => {
  const svc = c.var.svc
  const session = c.get('session') as SessionInfo | undefined
  const canvasId = canvasIdParam(c)
  const view = await findViewable(svc, canvasId, session?.workspace.workspace_id ?? null)
  if (!view) {
    if (!session) return c.redirect(`/login?next=${encodeURIComponent(`/c/${canvasId}`)}`)
    throw new AppError('canvas_not_found', 'canvas not found')
  }
  const version = pickVersion(c.req.query('v'), view.versions, view.canvas.version)
  const shared = c.req.query('shared')
  const origin = requestOrigin(c)
  // The frame lives as long as the access that shows it: the owner's session, or publicity.
  const grant =
    view.isOwner && session
      ? ({ kind: 'owner', sessionId: session.sessionId } as const)
      : ({ kind: 'public' } as const)
  const frame = await frameUrls(svc, origin, { canvasId, version, grant })
  return c.html(
    <Viewer
      title={view.canvas.title}
      rendererId={view.canvas.renderer_id}
      ext={view.canvas.ext}
      frameSrc={frame?.src ?? null}
      version={version}
      versions={view.versions}
      canvasId={canvasId}
      downloadHref={`/c/${canvasId}/download?v=${version}`}
      owner={view.isOwner && session ? { csrf: await csrfToken(c.var.svc, session) } : undefined}
      shareUrl={
        view.isOwner && shared && shareToken.safeParse(shared).success
          ? `${origin}/s/${shared}`
          : undefined
      }
      og={
        view.canvas.visibility === 'public'
          ? { title: view.canvas.title, type: 'article' }
          : undefined
      }
    />,
  )
})

web.get('/c/:id/download', async (c) => {
  const svc = c.var.svc
  const session = c.get('session') as SessionInfo | undefined
  const view = await findViewable(svc, canvasIdParam(c), session?.workspace.workspace_id ?? null)
  if (!view) throw new AppError('canvas_not_found', 'canvas not found')
  const version = pickVersion(c.req.query('v'), view.versions, view.canvas.version)
  const content = await findVersionContent(svc, view.canvas.canvas_id, version)
  if (!content) throw new AppError('version_not_found', 'version not found')
  const target = storageTarget(svc.settings, requestOrigin(c))
  const url = await signedDownload(svc, target, { blobKey: content.blob_key, ...view.canvas }, true)
  return c.redirect(url, 302)
})

web.get('/s/:token', limitByIp('PUBLIC_LIMITER'), (c) => shareView(c))
web.post('/s/:token', limitByIp('PUBLIC_LIMITER'), async (c) => {
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
  const frame = await frameUrls(svc, requestOrigin(c), {
    canvasId: opened.canvasId,
    version: opened.version,
    grant: { kind: 'share', token },
    limited: opened.limited,
  })
  return c.html(
    <Viewer
      title={opened.title}
      rendererId={opened.rendererId}
      ext={opened.ext}
      frameSrc={frame?.src ?? null}
      version={opened.version}
      downloadHref={frame?.download ?? `/share/${token}/content?dl=1`}
      og={{ title: opened.title, type: 'article' }}
    />,
  )
}

async function requirePageSession(c: Context<AppEnv>): Promise<SessionInfo | Response> {
  const session = c.get('session') as SessionInfo | undefined
  if (session) return session
  const path = new URL(c.req.url).pathname
  return c.redirect(c.req.method === 'GET' ? `/login?next=${encodeURIComponent(path)}` : '/login')
}

/** The form of a logged-in page, refused unless it carries this session's CSRF token. */
async function checkedForm(c: Context<AppEnv>, session: SessionInfo) {
  const form = await readForm(c)
  if (!constantTimeEqual(form.get('_csrf') ?? '', await csrfToken(c.var.svc, session))) {
    throw new AppError('forbidden', 'the form has expired; reload the page and try again')
  }
  return form
}

/** The named fields of a form as the API's JSON would carry them: an empty field is left out. */
function formFields(form: URLSearchParams, names: string[]) {
  const fields: Record<string, string> = {}
  for (const name of names) {
    const value = form.get(name)
    if (value) fields[name] = value
  }
  return fields
}

/** "password: must be at least 8 characters" → "The password must be at least 8 characters." */
function sentence(error: Parameters<typeof validationError>[0]) {
  return `${validationError(error).message.replace(/^(\w+)(\.\d+)?: /, 'The $1 ')}.`
}

async function readForm(c: Context<AppEnv>) {
  const bytes = await readBytes(c, 64 * 1024, 'form')
  return new URLSearchParams(new TextDecoder().decode(bytes))
}

/**
 * An HMAC of the session under CSRF_SECRET: it needs no storage of its own, and reading the sessions
 * table is not enough to forge one. 128 bits are plenty for a token that dies with its session.
 */
export async function csrfToken(svc: Services, session: SessionInfo) {
  return (await hmacHex(svc.settings.csrfSecret, `csrf:${session.sessionHash}`)).slice(0, 32)
}

async function renderSettings(
  c: Context<AppEnv>,
  session: SessionInfo,
  extra: { created?: { key: string; name: string }; error?: string } = {},
  status: 200 | 400 = 200,
) {
  const svc = c.var.svc
  const actor = sessionActor(session)
  const [keys, usage] = await Promise.all([listKeys(svc, actor), workspaceUsage(svc, actor)])
  return c.html(
    <Settings
      user={session.user}
      csrf={await csrfToken(c.var.svc, session)}
      keys={keys}
      usage={usage}
      endpoint={requestOrigin(c)}
      {...extra}
    />,
    status,
  )
}

function pickVersion(raw: string | undefined, versions: { version: number }[], current: number) {
  const wanted = Number(raw)
  return versions.some((v) => v.version === wanted) ? wanted : current
}

/** Only local paths: `next` must never send someone to another site after login. */
function safeNext(next: string | undefined) {
  return next && /^\/(?!\/)[\w\-./?=&%#]*$/.test(next) && !next.startsWith('/\\') ? next : undefined
}

function asset(c: Context, body: string, type: string) {
  return c.body(body, 200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=3600' })
}
