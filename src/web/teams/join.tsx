import { Hono } from 'hono'
import { page } from '../../http/actor/steps'
import { MEMBER } from '../../http/actor/need'
import { open } from '../../http/actor/steps'
import type { AppEnv, SignedInEnv } from '../../http/context'
import { inviteTokenInPath } from '../../schema/workspace-requests'
import { params } from '../../http/validate'
import { openInvite } from '../../domain/workspaces/invites'
import { joinWithSession } from '../../domain/workspaces/workspaces'
import { forPeople } from '../people'
import { AppError } from '../../lib/errors'
import { quoted, setFlash } from '../flash'
import { waysOf } from '../auth'
import { AuthPage } from '../pages/auth'
import { ErrorPage } from '../pages/error'
import { checkedForm, csrfToken, viewerOf } from '../session'
import { JoinPage } from './join-page'

// /join/<token>: the page an invite's link opens. Signed in, one click joins; without an account,
// the signup form joins as it signs up (even when signup is closed); a link that no longer works
// says so, and what to do.
export const joinPages = new Hono<AppEnv>()
export const joinForms = new Hono<SignedInEnv>()

joinPages.get('/:token', open, params(inviteTokenInPath), async (c) => {
  const { svc, session } = c.var
  const token = c.req.valid('param').token
  let invite
  try {
    invite = await openInvite(svc, token)
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'invite_not_found') throw err
    return c.html(<InviteGone user={viewerOf(session)} />, 404)
  }
  if (!session) {
    return c.html(<AuthPage mode="signup" invite={{ token, ...invite }} ways={waysOf(c.var.svc)} />)
  }
  const csrf = await csrfToken(svc, session)
  return c.html(<JoinPage user={viewerOf(session)} csrf={csrf} token={token} invite={invite} />)
})

joinForms.post('/:token', page(MEMBER), checkedForm, params(inviteTokenInPath), async (c) => {
  const { svc, session } = c.var
  let workspace
  try {
    workspace = await joinWithSession(svc, session, c.req.valid('param').token)
  } catch (err) {
    if (!(err instanceof AppError)) throw err
    if (err.code === 'invite_not_found') return c.html(<InviteGone user={viewerOf(session)} />, 404)
    const status = err.status === 403 ? 403 : 409
    const message = forPeople(err.message)
    return c.html(
      <ErrorPage
        status={status}
        title="You could not join"
        message={message}
        user={viewerOf(session)}
      />,
      status,
    )
  }
  await setFlash(c, {
    tone: 'ok',
    text: `You joined ${quoted(workspace.name)} as ${workspace.role}: these are its canvases.`,
  })
  return c.redirect('/')
})

function InviteGone({ user }: { user?: { email: string } | null }) {
  return (
    <ErrorPage
      status={404}
      title="This invite no longer works"
      message="It was used, revoked or has expired. Ask whoever sent it for a new link."
      user={user}
    />
  )
}
