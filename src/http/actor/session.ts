import type { Context } from 'hono'
import { getCookie, setCookie } from 'hono/cookie'
import { createMiddleware } from 'hono/factory'
import { resolveSession, type SessionInfo } from '../../domain/users'
import { AppError } from '../../lib/errors'
import { requestOrigin, type AppEnv } from '../context'
import { sessionActor } from './build'

// A person's web session, as the authority (http/actor) reads it: the cookie names a session,
// its one lookup says who the person is and their role in its current workspace, and the request
// carries both the session (the pages show it) and its actor (the domain acts with it).

export const SESSION_COOKIE = 'canvas_session'
const READS = new Set(['GET', 'HEAD'])

/** The request's session and actor, when its cookie names a live session; nothing otherwise. */
export async function readSession(c: Context<AppEnv>) {
  if (c.var.session) return c.var.session
  const token = getCookie(c, SESSION_COOKIE)
  const session = token ? await resolveSession(c.var.svc, token) : null
  if (session) actAs(c, session)
  return session
}

/** The request goes on as `session`'s person: one just opened (a sign-in), or read. */
export function actAs(c: Context<AppEnv>, session: SessionInfo) {
  c.set('session', session)
  c.set('actor', sessionActor(session))
}

/** Every page knows who is looking, if anyone: the header shows it, the viewer depends on it. */
export const loadSession = createMiddleware<AppEnv>(async (c, next) => {
  await readSession(c)
  await next()
})

/**
 * Cookie-authenticated writes must come from our own pages. Browsers send Origin on every POST
 * and DELETE, and Sec-Fetch-Site where they support it; either one naming another site is refused.
 */
export const sameOrigin = createMiddleware<AppEnv>(async (c, next) => {
  if (!READS.has(c.req.method)) {
    const origin = c.req.header('Origin')
    const site = c.req.header('Sec-Fetch-Site')
    const crossOrigin = origin !== undefined && origin !== requestOrigin(c)
    const crossSite = site !== undefined && site !== 'same-origin' && site !== 'none'
    if (crossOrigin || crossSite) throw new AppError('forbidden', 'cross-origin request refused')
  }
  await next()
})

/** The session cookie: HttpOnly, SameSite=Lax, Secure over https (docs/api.md). */
export function startSession(c: Context, token: string, expiresAt: number) {
  setCookie(c, SESSION_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'Lax',
    secure: isHttps(c),
    expires: new Date(expiresAt),
  })
}

export const isHttps = (c: Context) => new URL(c.req.url).protocol === 'https:'
