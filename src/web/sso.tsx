import { Hono, type Context } from 'hono'
import { deleteCookie, getSignedCookie, setSignedCookie } from 'hono/cookie'
import { open } from '../http/actor/steps'
import { isHttps, startSession } from '../http/actor/session'
import { requestOrigin, type AppEnv } from '../http/context'
import { limitByIp } from '../http/limits'
import { signInBySso } from '../domain/sso/sign-in'
import type { OidcAttempt } from '../domain/sso/tokens'
import { AppError } from '../lib/errors'
import { secretFor } from '../lib/settings'
import { safeNext } from './forms'
import { ErrorPage } from './pages/error'
import { ATTEMPT_PATH, CALLBACK_PATH, providers, REFUSALS } from './sso-access'

// Signing in by the team's identity provider (docs/operations.md): OpenID Connect from the login
// page (here), and Cloudflare Access in front of the whole service (sso-access.ts). Tokens are checked by domain/sso; a
// refusal is a 403 page that says why, and never a session.

export const sso = new Hono<AppEnv>()

// What a sign-in keeps while the person is at the provider: signed, for this path only, and for
// no longer than a sign-in takes.
const ATTEMPT_COOKIE = 'canvas_oidc'
const ATTEMPT_SECONDS = 600

sso.get(ATTEMPT_PATH, open, limitByIp('AUTH_LIMITER'), async (c) => {
  const settings = c.var.svc.settings.sso.oidc
  if (!settings) throw new AppError('not_found', 'single sign-on is not configured on this server')
  if (c.var.session) return c.redirect(safeNext(c.req.query('next')) ?? '/')
  return refusedOnPage(c, async () => {
    const callback = requestOrigin(c) + CALLBACK_PATH
    const { url, attempt } = await (
      await providers()
    ).startOidc(settings, callback, safeNext(c.req.query('next')) ?? null)
    await setSignedCookie(c, ATTEMPT_COOKIE, JSON.stringify(attempt), cookieSecret(c), {
      path: ATTEMPT_PATH,
      httpOnly: true,
      sameSite: 'Lax',
      secure: isHttps(c),
      maxAge: ATTEMPT_SECONDS,
    })
    return c.redirect(url.href)
  })
})

sso.get(CALLBACK_PATH, open, limitByIp('AUTH_LIMITER'), async (c) => {
  const settings = c.var.svc.settings.sso.oidc
  if (!settings) throw new AppError('not_found', 'single sign-on is not configured on this server')
  return refusedOnPage(c, async () => {
    const attempt = await attemptOf(c)
    deleteCookie(c, ATTEMPT_COOKIE, { path: ATTEMPT_PATH, secure: isHttps(c) })
    const error = c.req.query('error')
    if (error) {
      const why = c.req.query('error_description') ?? error
      throw new AppError('forbidden', `the identity provider did not sign you in: ${why}`)
    }
    const who = await (await providers()).finishOidc(settings, new URL(c.req.url), attempt)
    const result = await signInBySso(c.var.svc, who)
    startSession(c, result.sessionToken, result.expiresAt)
    return c.redirect(attempt.next ?? '/')
  })
})

async function attemptOf(c: Context<AppEnv>): Promise<OidcAttempt> {
  const saved = await getSignedCookie(c, cookieSecret(c), ATTEMPT_COOKIE)
  if (!saved) {
    throw new AppError(
      'forbidden',
      'this sign-in has expired or was started in another browser: start it again from the login page',
    )
  }
  return JSON.parse(saved) as OidcAttempt
}

// The CSRF secret, for a purpose of its own: an attempt's signature is no CSRF token.
const cookieSecret = (c: Context<AppEnv>) =>
  `sso:${secretFor('CSRF_SECRET', c.var.svc.settings.csrfSecret)}`

/** Runs a sign-in step; a refusal (403, 409) is a page saying why, never a session. */
async function refusedOnPage<T>(c: Context<AppEnv>, step: () => Promise<T>): Promise<T | Response> {
  try {
    return await step()
  } catch (err) {
    if (!(err instanceof AppError) || !REFUSALS.includes(err.code)) throw err
    const status = err.code === 'conflict' ? 409 : 403
    const message = err.message.charAt(0).toUpperCase() + err.message.slice(1) + '.'
    return c.html(
      <ErrorPage
        status={status}
        title="You could not be signed in"
        message={message}
        back={{ href: '/login', label: 'Back to log in' }}
      />,
      status,
    )
  }
}
