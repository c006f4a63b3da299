import { cliInstall } from '../cli-package'
import { publicOrigin } from '../../http/context'
import { page } from '../../http/actor/steps'
import { may, MEMBER, READ } from '../../http/actor/need'
import { MANAGING } from '../needs'
import { Hono, type Context } from 'hono'
import { requestOrigin, type SignedInEnv } from '../../http/context'
import { id as idSchema } from '../../schema/requests'
import { createKeyBody, displayNameBody, passwordChangeBody } from '../../schema/account-requests'
import { changePassword, hasPassword, WRONG_CURRENT } from '../../domain/passwords/own'
import { createKey, listOwnKeys, revokeKey } from '../../domain/keys'
import { listConnectedApps, revokeConnectedApp } from '../../domain/oauth/grants'
import { workspaceUsage } from '../../domain/usage'
import { webhooksWithDeliveries } from '../../domain/webhooks/webhooks'
import { forgetGrants } from '../../http/oauth'
import { actorIn } from '../../http/actor/build'
import { displayNameOf, setDisplayName } from '../../domain/users'
import { AppError } from '../../lib/errors'
import { quoted, setFlash, takeFlash } from '../flash'
import { sentence } from '../forms'
import { Settings } from './settings-page'
import { checkedForm, csrfToken, viewerOf, type FormEnv } from '../session'
import { webhookForms } from './webhooks'
import { members } from '../teams/members'
import { activity } from '../teams/activity'

// /settings: the workspace's usage, its API keys, the apps connected to it and its webhooks.
export const settings = new Hono<SignedInEnv>()

settings.get('/', page(READ), async (c) => renderSettings(c))
settings.route('/members', members)
settings.route('/activity', activity)
settings.route(
  '/webhooks',
  webhookForms((c, extra) => renderSettings(c, extra, 400)),
)

settings.post('/name', page(MEMBER), checkedForm, async (c) => {
  const given = (c.var.form.get('display_name') ?? '').trim()
  const checked = displayNameBody.safeParse({ display_name: given === '' ? null : given })
  if (!checked.success) {
    const nameError = sentence(checked.error).replace('display_name', 'display name')
    return renderSettings(c, { nameError }, 400)
  }
  const { svc, session } = c.var
  await setDisplayName(svc, session.user.user_id, checked.data.display_name)
  const { shown } = await displayNameOf(svc, session.user.user_id)
  await setFlash(c, {
    tone: 'ok',
    text: `People outside the workspace now see you as ${quoted(shown)}.`,
    at: 'name',
  })
  return c.redirect('/settings#name')
})

settings.post('/password', page(MEMBER), checkedForm, async (c) => {
  const form = c.var.form
  const checked = passwordChangeBody.safeParse({
    current: form.get('current') ?? '',
    password: form.get('password') ?? '',
  })
  if (!checked.success) {
    const passwordError = sentence(checked.error).replace(/^The password/, 'The new password')
    return renderSettings(c, { passwordError }, 400)
  }
  try {
    const { otherSessionsEnded } = await changePassword(c.var.svc, c.var.session, checked.data)
    const others = otherSessionsEnded
      ? ` Your ${otherSessionsEnded === 1 ? 'other session is' : `${otherSessionsEnded} other sessions are`} signed out.`
      : ''
    await setFlash(c, { tone: 'ok', text: `Your password is changed.${others}`, at: 'password' })
    return c.redirect('/settings#password')
  } catch (err) {
    if (!(err instanceof AppError) || err.message !== WRONG_CURRENT) throw err
    return renderSettings(c, { passwordError: 'The current password is not right.' }, 400)
  }
})

settings.post('/keys', page(MEMBER), checkedForm, async (c) => {
  const form = c.var.form
  // The form's access choice names the API's scopes: write implies read.
  const scope = form.get('scope') ?? 'write'
  const checked = createKeyBody.safeParse({
    name: (form.get('name') ?? '').trim(),
    scopes: scope === 'write' ? ['read', 'write'] : [scope],
  })
  if (!checked.success) return renderSettings(c, { error: sentence(checked.error) }, 400)
  const { name, scopes } = checked.data
  const actor = c.var.actor
  const created = await createKey(c.var.svc, actor, name, scopes ?? ['read', 'write'])
  // The key is shown once, on the page the redirect lands on: a reload makes no second key.
  await setFlash(c, {
    tone: 'ok',
    text: `${quoted(name)} was created. Copy it now: it is not shown again.`,
    copy: [
      { label: 'The key', value: created.key },
      {
        label: 'Log in from a terminal',
        value: `svc login --token ${created.key} --endpoint ${requestOrigin(c)}`,
      },
    ],
  })
  return c.redirect('/settings')
})

settings.post('/keys/:keyId/revoke', page(MEMBER), checkedForm, async (c) => {
  const keyId = c.req.param('keyId')
  // Revoking a key that is already gone leaves the page as it would be anyway, and says so.
  let text = 'That key was revoked already.'
  if (idSchema.safeParse(keyId).success) {
    try {
      const name = await revokeKey(c.var.svc, await actingWhere(c), keyId)
      text = `${quoted(name)} is revoked: requests with it are refused from now on.`
    } catch (err) {
      if (!(err instanceof AppError)) throw err
    }
  }
  await setFlash(c, { tone: 'ok', text })
  return c.redirect('/settings')
})

settings.post('/apps/:grantId/revoke', page(MEMBER), checkedForm, async (c) => {
  const grantId = c.req.param('grantId')
  // Disconnecting an app that is gone already leaves the page as it would be anyway, and says so.
  let text = 'That app was disconnected already.'
  if (/^[A-Za-z0-9_-]{1,64}$/.test(grantId)) {
    try {
      const { name, grant } = await revokeConnectedApp(c.var.svc, await actingWhere(c), grantId)
      // Ended in D1 at once, for every request anywhere; its tokens leave KV after the response.
      forgetGrants(c, [grant])
      text = `${quoted(name)} is disconnected: its access ends now.`
    } catch (err) {
      if (!(err instanceof AppError)) throw err
    }
  }
  await setFlash(c, { tone: 'ok', text })
  return c.redirect('/settings')
})

/**
 * The person, in the workspace of the key or app the form ends: Settings lists theirs in every
 * workspace. One they are no longer a member of is not found, as its key would not be.
 */
async function actingWhere(c: Context<FormEnv>) {
  const workspaceId = c.var.form.get('workspace_id')
  const where =
    typeof workspaceId === 'string' && workspaceId ? workspaceId : c.var.actor.workspaceId
  return actorIn(c.var.svc, c.var.actor, where)
}

async function renderSettings<E extends SignedInEnv>(
  c: Context<E>,
  extra: { error?: string; webhookError?: string; nameError?: string; passwordError?: string } = {},
  status: 200 | 400 = 200,
) {
  const { svc, session } = c.var
  const actor = c.var.actor
  const [keys, apps, usage, webhooks, name, password] = await Promise.all([
    listOwnKeys(svc, actor.userId),
    listConnectedApps(svc, actor.userId),
    workspaceUsage(svc, actor),
    // Where the workspace's events go is its admins' to see.
    may(actor, MANAGING) ? webhooksWithDeliveries(svc, actor) : null,
    displayNameOf(svc, actor.userId),
    hasPassword(svc, actor.userId),
  ])
  return c.html(
    <Settings
      cli={cliInstall(c)}
      user={viewerOf(session)}
      csrf={await csrfToken(svc, session)}
      keys={keys}
      apps={apps}
      usage={usage}
      webhooks={webhooks}
      name={name}
      hasPassword={password}
      passwordLogin={svc.settings.sso.passwordLogin}
      flash={await takeFlash(c, c.var)}
      {...extra}
    />,
    status,
  )
}
