import { createMiddleware } from 'hono/factory'
import { limit } from '../http/limits'
import type { AppEnv, SignedInEnv } from '../http/context'
import type { SessionInfo } from '../domain/users'
import type { Services } from '../domain/services'
import { constantTimeEqual, hmacHex } from '../lib/crypto'
import { AppError } from '../lib/errors'
import { secretFor } from '../lib/settings'
import { readForm } from './forms'
import type { User } from './pages/layout'

/** A signed-in form post whose CSRF token held; `form` is its fields. */
export type FormEnv = {
  Bindings: AppEnv['Bindings']
  Variables: SignedInEnv['Variables'] & { form: URLSearchParams }
}

/** Who is looking, as the pages' header shows them: with their session's workspace. */
export function viewerOf(session: SessionInfo): User
export function viewerOf(session: SessionInfo | undefined | null): User | null
export function viewerOf(session: SessionInfo | undefined | null): User | null {
  return session ? { email: session.user.email, workspace: session.workspace } : null
}

/** A signed-in form post, refused unless it carries this session's CSRF token. */
export const checkedForm = createMiddleware<FormEnv>(async (c, next) => {
  const form = await readForm(c)
  await checkCsrf(c.var, form.get('_csrf'))
  c.set('form', form)
  await next()
})

/**
 * An HMAC of the session under CSRF_SECRET, for one purpose and maybe one text: it needs no
 * storage of its own, and reading the sessions table is not enough to forge one. 128 bits are
 * plenty for what dies with its session (CSRF tokens; the message cookie, flash.ts).
 */
export async function sessionMac(
  { svc, session }: { svc: Services; session: SessionInfo },
  purpose: string,
  text?: string,
) {
  const secret = secretFor('CSRF_SECRET', svc.settings.csrfSecret)
  const message = `${purpose}:${session.sessionHash}${text === undefined ? '' : `:${text}`}`
  return (await hmacHex(secret, message)).slice(0, 32)
}

export function csrfToken(svc: Services, session: SessionInfo) {
  return sessionMac({ svc, session }, 'csrf')
}

/** Refuses a signed-in write whose token (a form field, a header) is not this session's. */
export async function checkCsrf(
  signed: { svc: Services; session: SessionInfo },
  presented: string | null | undefined,
) {
  if (!constantTimeEqual(presented ?? '', await csrfToken(signed.svc, signed.session))) {
    throw new AppError('forbidden', 'the form has expired; reload the page and try again')
  }
}

/** A signed-in script's request (JSON, not a form): the CSRF token travels in a header. */
export const checkedHeader = createMiddleware<SignedInEnv>(async (c, next) => {
  await checkCsrf(c.var, c.req.header(CSRF_HEADER))
  await next()
})

export const CSRF_HEADER = 'X-CSRF-Token'

/**
 * The pages' writes (uploads, share links, the other actions) take from the same budget as the
 * API's, per session rather than per key: a script holding a session gets no more than a key.
 */
export const limitBySession = createMiddleware<SignedInEnv>(async (c, next) => {
  await limit(c.env.API_LIMITER, `session:${c.var.session.sessionId}`)
  await next()
})
