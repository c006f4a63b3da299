import { describe, expect, it } from 'vitest'
import { call, csrfOf, formPost, json, newAccount, sessionCookie } from './support/api'
import { oidcEnv, oidcSignIn } from './support/sso'

// A person's own password, from Settings (docs/api.md): changed with the current one, which signs
// out their other sessions; a first one for a person who came by single sign-on.

async function change(cookie: string, fields: { current: string; password: string }) {
  return call('/settings/password', {
    ...formPost({ ...fields, _csrf: await csrfOf(cookie) }),
    cookie,
  })
}

const logIn = (email: string, password: string) => call('/login', formPost({ email, password }))

describe('changing one’s password', () => {
  it('needs the current password; a wrong one changes nothing', async () => {
    const account = await newAccount()
    const res = await change(account.cookie, {
      current: 'not it at all',
      password: 'a new one here',
    })
    expect(res.status).toBe(400)
    expect(await res.text()).toContain('The current password is not right.')
    expect((await logIn(account.email, account.password)).status).toBe(302)
    expect((await logIn(account.email, 'a new one here')).status).toBe(401)
  })

  it('refuses a new password signup would refuse, saying why', async () => {
    const account = await newAccount()
    const res = await change(account.cookie, { current: account.password, password: 'short' })
    expect(res.status).toBe(400)
    expect(await res.text()).toContain('The new password must be at least 8 characters.')
  })

  it('changes it, keeps this session, signs out the others, and is in the audit log', async () => {
    const account = await newAccount()
    const other = sessionCookie(await logIn(account.email, account.password))
    const res = await change(account.cookie, {
      current: account.password,
      password: 'brand new words',
    })
    expect(res.status).toBe(302)
    expect(res.headers.get('Location')).toBe('/settings#password')
    expect((await call('/settings', { cookie: account.cookie })).status).toBe(200)
    expect((await call('/settings', { cookie: other })).status).toBe(302)
    expect((await logIn(account.email, account.password)).status).toBe(401)
    expect((await logIn(account.email, 'brand new words')).status).toBe(302)
    const audit = await json(
      await call('/v1/audit?action=auth.password_changed', { key: account.key }),
    )
    expect(audit.events).toEqual([
      expect.objectContaining({
        actor: expect.objectContaining({ kind: 'member', name: account.email }),
        details: { first: false },
      }),
    ])
  })

  it('lets a person who came by single sign-on set a first password', async () => {
    const env = oidcEnv()
    const email = `sso-${crypto.randomUUID().slice(0, 8)}@acme.example`
    const signedIn = await oidcSignIn(env, { sub: 'p1', email, email_verified: true })
    const cookie = sessionCookie(signedIn)
    const page = await (await call('/settings', { cookie })).text()
    expect(page).toContain('Set password')
    expect(page).not.toContain('id="current-password"')
    expect((await change(cookie, { current: '', password: 'my first password' })).status).toBe(302)
    expect((await logIn(email, 'my first password')).status).toBe(302)
    // With passwords off, the form is not offered.
    const off = await call('/settings', { cookie, env: { ...env, PASSWORD_LOGIN: 'off' } })
    expect(await off.text()).not.toContain('id="password"')
  })
})
