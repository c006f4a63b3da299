import { Hono, type Context } from 'hono'
import { page } from '../http/actor/steps'
import { MEMBER, READ } from '../http/actor/need'
import {
  decideDevice,
  normalizeUserCode,
  pendingDevice,
  shownUserCode,
} from '../domain/oauth/devices'
import { apiScopes, chosenScopes, OAUTH_SCOPES } from '../domain/oauth/grants'

import { actorIn } from '../http/actor/build'
import type { SignedInEnv } from '../http/context'
import { clientNetworkOf, limit, limitByIp } from '../http/limits'
import { consentPage } from './oauth'
import { Layout } from './pages/layout'
import { FormError } from './pages/notice'
import { checkedForm, csrfToken, viewerOf } from './session'

// /oauth/device: where a person types the code `svc login --device` shows (RFC 8628), then sees
// which app asks and picks the workspace and the access, as on the consent page; the CLI's next
// poll gets its key. The link the CLI prints carries the code, which still needs the click.

export const device = new Hono<SignedInEnv>()

device.get('/device', page(READ), async (c) => {
  const typed = c.req.query('user_code')
  if (typed === undefined) return enterCode(c)
  // A code looked up is a guess counted as the form's are: one budget per client, GET or POST.
  await limit(c.env.AUTH_LIMITER, `ip:${clientNetworkOf(c)}`)
  return confirm(c, typed)
})

device.post('/device', page(MEMBER), limitByIp('AUTH_LIMITER'), checkedForm, async (c) => {
  const form = c.var.form
  const typed = form.get('user_code') ?? ''
  const decision = form.get('decision')
  if (decision === null) return confirm(c, typed)
  const code = normalizeUserCode(typed)
  const svc = c.var.svc
  let decided = false
  if (code && decision === 'approve') {
    const chosen = form.get('workspace_id') || c.var.session.workspace.workspace_id
    const actor = await actorIn(svc, c.var.actor, chosen)
    const scopes = apiScopes(chosenScopes(form.get('access'), [...OAUTH_SCOPES]))
    decided = await decideDevice(svc, code, { approve: true, actor, scopes })
  } else if (code) {
    decided = await decideDevice(svc, code, { approve: false })
  }
  if (!decided) return enterCode(c, GONE, 404)
  const approved = decision === 'approve'
  return c.html(
    <Layout title="Device sign-in" user={viewerOf(c.var.session)} main="narrow">
      <div class="panel" role="status">
        <h1>{approved ? 'Signed in: back to your terminal' : 'Sign-in denied'}</h1>
        <p>
          {approved
            ? 'The command line gets its key within seconds; it is listed in Settings, where you can revoke it.'
            : 'The command line gets nothing. You can close this page.'}
        </p>
      </div>
    </Layout>,
  )
})

const GONE = 'This code is not valid or has expired: run the command again for a new one.'

/** The page that asks for the code. */
async function enterCode<E extends SignedInEnv>(
  c: Context<E>,
  error?: string,
  status: 400 | 404 = 400,
) {
  const csrf = await csrfToken(c.var.svc, c.var.session)
  return c.html(
    <Layout title="Device sign-in" user={viewerOf(c.var.session)} csrf={csrf} main="narrow">
      <div class="panel">
        <h1>Sign in a device</h1>
        <p class="muted">
          Type the code that <code>svc login --device</code> shows on the other machine.
        </p>
        {error && <FormError>{error}</FormError>}
        <form method="post" action="/oauth/device">
          <input type="hidden" name="_csrf" value={csrf} />
          <label for="user-code">Code</label>
          <input
            id="user-code"
            name="user_code"
            required
            autocomplete="off"
            autocapitalize="characters"
            spellcheck={false}
            maxlength={20}
            placeholder="WDJB-MJHT"
            autofocus
          />
          <button class="primary" type="submit">
            Continue
          </button>
        </form>
      </div>
    </Layout>,
    error ? status : 200,
  )
}

/** The consent page for the code's request, or the code form again saying why not. */
async function confirm<E extends SignedInEnv>(c: Context<E>, typed: string) {
  const code = normalizeUserCode(typed)
  const pending = code ? await pendingDevice(c.var.svc, code) : null
  if (!code || !pending) return enterCode(c, GONE, 404)
  return consentPage(c, '/oauth/device', {
    clientName: pending.clientName,
    redirectHost: '',
    redirectIsLoopback: false,
    write: pending.write,
    deviceCode: shownUserCode(code),
  })
}
