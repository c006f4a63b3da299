import { Hono, type Context } from 'hono'
import { open } from '../http/actor/steps'
import { actAs, startSession } from '../http/actor/session'
import type { AppEnv, SignedInEnv } from '../http/context'
import { limitByIp } from '../http/limits'
import { openResetLink, useResetLink } from '../domain/passwords/resets'
import { AppError } from '../lib/errors'
import { MIN_PASSWORD_LENGTH, newPassword } from '../schema/account-requests'
import { setFlash } from './flash'
import { readForm, sentence } from './forms'
import { ErrorPage } from './pages/error'
import { Layout } from './pages/layout'
import { FormError } from './pages/notice'
import { viewerOf } from './session'

// /reset/<token>: the page a password reset link opens (an admin made it in Members). The person
// chooses a new password once; every session of theirs ends, and they are signed in here.
export const resetPages = new Hono<AppEnv>()

resetPages.get('/:token', open, async (c) => {
  const link = await openResetLink(c.var.svc, c.req.param('token'))
  if (!link) return c.html(<LinkGone user={viewerOf(c.var.session)} />, 404)
  return c.html(<ResetPage token={c.req.param('token')} email={link.email} />)
})

resetPages.post('/:token', open, limitByIp('AUTH_LIMITER'), async (c) => {
  const token = c.req.param('token')
  const form = await readForm(c)
  const checked = newPassword.safeParse(form.get('password') ?? '')
  if (!checked.success) {
    const link = await openResetLink(c.var.svc, token)
    if (!link) return c.html(<LinkGone user={viewerOf(c.var.session)} />, 404)
    const error = sentence(checked.error).replace(/^(Must|must)/, 'The password must')
    return c.html(<ResetPage token={token} email={link.email} error={error} />, 400)
  }
  let opened
  try {
    opened = await useResetLink(c.var.svc, token, checked.data)
  } catch (err) {
    if (!(err instanceof AppError)) throw err
    if (err.code === 'not_found') return c.html(<LinkGone user={viewerOf(c.var.session)} />, 404)
    return c.html(
      <ErrorPage status={403} title="Passwords are off" message={err.message} />,
      err.status === 403 ? 403 : 400,
    )
  }
  startSession(c, opened.sessionToken, opened.expiresAt)
  actAs(c, opened.session)
  const signedIn = c as unknown as Context<SignedInEnv>
  await setFlash(signedIn, {
    tone: 'ok',
    text: 'Your new password is set; every other session of yours has ended.',
  })
  return c.redirect('/')
})

function ResetPage(props: { token: string; email: string; error?: string }) {
  return (
    <Layout title="Choose a new password" main="narrow">
      <div class="panel">
        <h1>Choose a new password</h1>
        <p class="muted">
          For <strong>{props.email}</strong>. The link works once; your other sessions end.
        </p>
        {props.error && <FormError>{props.error}</FormError>}
        <form method="post" action={`/reset/${props.token}`}>
          {/* The address for password managers, which save the new password under it. */}
          <input type="email" name="email" value={props.email} autocomplete="username" hidden />
          <label for="password">New password</label>
          <input
            id="password"
            name="password"
            type="password"
            required
            minlength={MIN_PASSWORD_LENGTH}
            autocomplete="new-password"
            autofocus
          />
          <button class="primary" type="submit">
            Set password and sign in
          </button>
        </form>
      </div>
    </Layout>
  )
}

function LinkGone({ user }: { user?: { email: string } | null }) {
  return (
    <ErrorPage
      status={404}
      title="This reset link no longer works"
      message="It was used, replaced by a newer one, or has expired. Ask an admin of your team for a new link."
      user={user}
    />
  )
}
