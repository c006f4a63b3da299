import { createMiddleware } from 'hono/factory'
import { getCookie } from 'hono/cookie'
import { actAs, startSession } from '../http/actor/session'
import type { AppEnv } from '../http/context'
import { signInBySso } from '../domain/sso/sign-in'
import { AppError } from '../lib/errors'

// What every page needs of single sign-on: its paths, and Cloudflare Access's sign-in in front of
// them. The sign-in pages themselves are src/web/sso.tsx, loaded with the rest of the app.

export const ATTEMPT_PATH = '/auth/oidc'
export const CALLBACK_PATH = '/auth/oidc/callback'

/** Pages, though under /auth/ (the API's JSON): a person's browser goes through them. */
export const isSsoPage = (path: string) => path === ATTEMPT_PATH || path === CALLBACK_PATH

// The JOSE and OpenID libraries are evaluated on the first sign-in that needs them, not at every
// start of the Worker (BENCHMARKS.md, the Worker's start).
let libraries: Promise<typeof import('../domain/sso/tokens')> | undefined
export const providers = () => (libraries ??= import('../domain/sso/tokens'))

/** A sign-in's refusals: told to the person on a page, never a session. */
export const REFUSALS: string[] = ['forbidden', 'conflict']

/**
 * Cloudflare Access in front: a page reached with a valid Access token and no session signs its
 * person in, once; the session then carries them as any other. A token that signs no one in
 * (expired, for another application, a stale cookie on a path Access lets through) turns no page
 * into a refusal: a share link, a public canvas, the docs and the landing page are answered as to
 * anyone, and a page that needs a session goes to the login page, which says why.
 */
export const accessSignIn = createMiddleware<AppEnv>(async (c, next) => {
  const settings = c.var.svc.settings.sso.access
  const token =
    settings && (c.req.header('Cf-Access-Jwt-Assertion') ?? getCookie(c, 'CF_Authorization'))
  if (!settings || !token || c.var.session) return next()
  try {
    const who = await (await providers()).verifyAccessToken(settings, token)
    const result = await signInBySso(c.var.svc, who)
    startSession(c, result.sessionToken, result.expiresAt)
    actAs(c, result.session)
  } catch (err) {
    if (!(err instanceof AppError) || !REFUSALS.includes(err.code)) throw err
    c.set('accessRefusal', err)
  }
  await next()
})
