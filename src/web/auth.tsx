import { viewerOf } from './session'
import { checkedBy, open } from '../http/actor/steps'
import { READ } from '../http/actor/need'
import { Hono } from 'hono'
import { deleteCookie, getCookie } from 'hono/cookie'
import { isHttps, SESSION_COOKIE, startSession } from '../http/actor/session'
import { fromThisMachine, type AppEnv } from '../http/context'
import { limitByIp } from '../http/limits'
import { credentialsBody, loginBody } from '../schema/account-requests'
import { hasAnyUser } from '../domain/canvases/reads'
import { endSession, login, mayCreateFirst, signup } from '../domain/users'
import { AppError } from '../lib/errors'
import { clearFlash } from './flash'
import { readForm, safeNext, sentence } from './forms'
import { AuthPage, SetupNeeded, type SignInWays } from './pages/auth'
import { ErrorPage } from './pages/error'
import { forPeople } from './people'
import { openInvite } from '../domain/workspaces/invites'
import type { Services } from '../domain/services'

// Signing up, logging in and out. A form's mistakes come back on the same form, as sentences.
export const auth = new Hono<AppEnv>()

// `/signup?setup=<token>` is a deployment's one-time setup link: the first account needs it (or,
// with no SETUP_TOKEN set, a person at the machine itself); once it exists the link is spent.
auth.get('/signup', open, async (c) => {
  if (c.var.session) return c.redirect('/')
  const svc = c.var.svc
  const setup = { token: c.req.query('setup'), local: fromThisMachine(c) }
  if (!(await hasAnyUser(svc))) {
    if (!mayCreateFirst(svc, setup)) return c.html(<SetupNeeded />, 403)
    return c.html(<AuthPage mode="signup" setupToken={setup.token} ways={waysOf(svc)} />)
  }
  return c.html(<AuthPage mode="signup" closed={!svc.settings.signupOpen} ways={waysOf(svc)} />)
})

auth.post('/signup', open, limitByIp('AUTH_LIMITER'), async (c) => {
  const form = await readForm(c)
  const email = form.get('email') ?? ''
  const setupToken = form.get('setup_token') ?? undefined
  const inviteToken = form.get('invite') ?? undefined
  const invite = inviteToken ? await invited(c.var.svc, inviteToken) : undefined
  const page = (error: string, status: 400 | 403 | 404 | 409) =>
    c.html(
      <AuthPage
        mode="signup"
        email={email}
        error={error}
        setupToken={setupToken}
        invite={invite}
        ways={waysOf(c.var.svc)}
      />,
      status,
    )
  const checked = credentialsBody.safeParse({ email, password: form.get('password') ?? '' })
  if (!checked.success) return page(sentence(checked.error), 400)
  try {
    const setup = { token: setupToken, local: fromThisMachine(c), invite: inviteToken }
    const result = await signup(c.var.svc, checked.data, setup)
    startSession(c, result.sessionToken, result.expiresAt)
    return c.redirect('/')
  } catch (err) {
    if (!(err instanceof AppError)) throw err
    if (err.code === 'invite_not_found') return page(forPeople(err.message), 404)
    if (err.code === 'forbidden') return page(forPeople(err.message), 403)
    if (err.code !== 'signup_closed') return page(err.message.replace(/^email: /, ''), 409)
    if (!(await hasAnyUser(c.var.svc))) return c.html(<SetupNeeded />, 403)
    return page('Signup is closed on this server.', 403)
  }
})

auth.get('/login', open, async (c) => {
  if (c.var.session) return c.redirect('/')
  if (!(await hasAnyUser(c.var.svc))) return c.redirect('/signup')
  const next = safeNext(c.req.query('next'))
  // Someone has signed up (above), so signup is closed exactly when SIGNUP is not open.
  const closed = !c.var.svc.settings.signupOpen
  // Cloudflare Access sent a token that signed no one in: the page says why.
  const refused = c.var.accessRefusal
  const error = refused && `Cloudflare Access did not sign you in: ${refused.message}.`
  return c.html(
    <AuthPage mode="login" next={next} closed={closed} ways={waysOf(c.var.svc)} error={error} />,
    refused ? 403 : 200,
  )
})

auth.post('/login', open, limitByIp('AUTH_LIMITER'), async (c) => {
  const form = await readForm(c)
  const email = form.get('email') ?? ''
  const next = safeNext(form.get('next') ?? undefined)
  const checked = loginBody.safeParse({ email, password: form.get('password') ?? '' })
  if (!checked.success) {
    const error = sentence(checked.error)
    return c.html(
      <AuthPage mode="login" email={email} next={next} error={error} ways={waysOf(c.var.svc)} />,
      400,
    )
  }
  try {
    const result = await login(c.var.svc, checked.data)
    startSession(c, result.sessionToken, result.expiresAt)
    return c.redirect(next ?? '/')
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'unauthorized') throw err
    return c.html(
      <AuthPage
        mode="login"
        email={email}
        next={next}
        error="Wrong email or password."
        ways={waysOf(c.var.svc)}
      />,
      401,
    )
  }
})

auth.get('/logout', checkedBy('page', { need: READ }), async (c) => {
  const session = c.var.session
  if (!session) return c.redirect('/login')
  return c.html(
    <ErrorPage
      status={200}
      title="Log out?"
      message="Use the Log out button above to end this session."
      user={viewerOf(session)}
    />,
  )
})

auth.post('/logout', open, async (c) => {
  const token = getCookie(c, SESSION_COOKIE)
  if (token) await endSession(c.var.svc, token)
  deleteCookie(c, SESSION_COOKIE, { path: '/', secure: isHttps(c) })
  clearFlash(c)
  return c.redirect('/login')
})

/** The ways in that the login and signup pages offer (SSO's settings, PASSWORD_LOGIN). */
export function waysOf(svc: Services): SignInWays {
  const { oidc, access, passwordLogin } = svc.settings.sso
  return { sso: oidc ? oidc.name : null, access: Boolean(access), password: passwordLogin }
}

/** What the signup form shows of the invite it carries; none when it no longer works. */
async function invited(svc: Services, token: string) {
  try {
    return { token, ...(await openInvite(svc, token)) }
  } catch (err) {
    if (err instanceof AppError && err.code === 'invite_not_found') return undefined
    throw err
  }
}
