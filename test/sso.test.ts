import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { call, csrfOf, formPost, json, newAccount, newCanvas, newKey } from './support/api'
import { keyIn, newTeam } from './support/teams'
import { huge, wild } from './support/hostile-values'
import { runs } from './support/runs'
import { accessEnv, accessToken, oidcEnv, oidcSignIn, providerUrl } from './support/sso'
import type { Tamper } from './node/support/identity-provider'

// Signing in as a team (docs/operations.md): OpenID Connect and Cloudflare Access against a real
// provider on 127.0.0.1, who may come in (SSO_DOMAINS, SSO_WORKSPACE, PASSWORD_LOGIN), and every
// way a token can be wrong refused with a page that says why, never a session.

const unique = (name: string) => `${name}-${crypto.randomUUID().slice(0, 8)}@acme.example`

function sessionOf(res: Response): string | null {
  return /canvas_session=([^;]+)/.exec(res.headers.get('Set-Cookie') ?? '')?.[0] ?? null
}

/** Who the session is, as the API says through a key the session makes. */
async function me(cookie: string) {
  const res = await call('/v1/me', { key: await newKey(cookie) })
  return (await json(res)) as {
    user: { email: string }
    workspace: { workspace_id: string; role: string }
  }
}

describe('OpenID Connect', () => {
  it('offers "Continue with <name>" on the login and signup pages only when configured', async () => {
    const env = oidcEnv()
    await newAccount()
    for (const page of ['/login', '/signup']) {
      expect(await (await call(page, { env })).text()).toContain('Continue with Acme SSO')
      expect(await (await call(page)).text()).not.toContain('Continue with')
    }
    expect((await call('/auth/oidc')).status).toBe(404)
  })

  it('signs a newcomer in with a new account, bound by issuer and subject', async () => {
    const env = oidcEnv()
    const email = unique('newcomer')
    const res = await oidcSignIn(
      env,
      { sub: 'sub-1', email, email_verified: true },
      { next: '/settings' },
    )
    expect(res.status, await res.clone().text()).toBe(302)
    expect(res.headers.get('Location')).toBe('/settings')
    const first = await me(sessionOf(res)!)
    expect(first.user.email).toBe(email)
    // The provider changed the person's email: the subject still names the same account.
    const again = await oidcSignIn(env, {
      sub: 'sub-1',
      email: unique('renamed'),
      email_verified: true,
    })
    expect((await me(sessionOf(again)!)).workspace.workspace_id).toBe(first.workspace.workspace_id)
    // No password opens an account made by single sign-on.
    const login = await call('/login', formPost({ email, password: 'none' }))
    expect(login.status).toBe(401)
  })

  it('signs into the account of a verified email instead of making another', async () => {
    const env = oidcEnv()
    const account = await newAccount()
    const res = await oidcSignIn(env, { sub: 'sub-2', email: account.email, email_verified: true })
    expect((await me(sessionOf(res)!)).workspace.workspace_id).toBe(account.workspaceId)
    // The password still works.
    const login = await call(
      '/login',
      formPost({ email: account.email, password: account.password }),
    )
    expect(login.status).toBe(302)
  })

  it('refuses an unverified email, and an account an unconfirmed email would open', async () => {
    const env = oidcEnv()
    const refused = await oidcSignIn(env, { sub: 's3', email: unique('u'), email_verified: false })
    expect(refused.status).toBe(403)
    expect(await refused.text()).toMatch(/has not verified/)
    expect(sessionOf(refused)).toBeNull()
    const account = await newAccount()
    const unsaid = await oidcSignIn(env, { sub: 's4', email: account.email })
    expect(unsaid.status).toBe(409)
    expect(await unsaid.text()).toMatch(/does not say the email is verified/)
    // With no account of that email, a provider that does not say (Entra ID) lets a newcomer in.
    const newcomer = await oidcSignIn(env, { sub: 's5', email: unique('entra') })
    expect(newcomer.status).toBe(302)
  })

  it('reads email_verified written as a string as the boolean it spells, and nothing else as true', async () => {
    const env = oidcEnv()
    const spelled = await oidcSignIn(env, {
      sub: 's6',
      email: unique('s'),
      email_verified: 'false',
    })
    expect(spelled.status).toBe(403)
    expect(await spelled.text()).toMatch(/has not verified/)
    expect(sessionOf(spelled)).toBeNull()
    for (const [i, said] of ['yes', 1, 'TRUE '].entries()) {
      const odd = await oidcSignIn(env, {
        sub: `s7-${i}`,
        email: unique('o'),
        email_verified: said,
      })
      expect(odd.status).toBe(403)
    }
    // "true" binds an existing account, as true does.
    const account = await newAccount()
    const res = await oidcSignIn(env, { sub: 's8', email: account.email, email_verified: 'true' })
    expect((await me(sessionOf(res)!)).workspace.workspace_id).toBe(account.workspaceId)
  })

  const refusals: [Tamper, RegExp][] = [
    ['audience', /aud/],
    ['issuer', /iss/],
    ['expired', /expired|exp/],
    ['nonce', /nonce/],
    ['state', /state/],
    ['impostor', /signature does not verify/],
    ['none', /alg|algorithm|not a signed token/i],
    ['unknown-kid', /key the provider does not publish/],
  ]
  for (const [tamper, why] of refusals) {
    it(`refuses an answer made wrong by ${tamper}, saying why, with no session`, async () => {
      const env = oidcEnv()
      const res = await oidcSignIn(
        env,
        { sub: 'x', email: unique(tamper), email_verified: true },
        { tamper },
      )
      expect(res.status).toBe(403)
      const page = await res.text()
      expect(page).toContain('You could not be signed in')
      expect(page).toMatch(why)
      expect(sessionOf(res)).toBeNull()
    })
  }

  it('refuses a callback without the attempt it answers (another browser, or forged)', async () => {
    const env = oidcEnv()
    const res = await oidcSignIn(
      env,
      { sub: 'y', email: unique('csrf'), email_verified: true },
      { dropAttempt: true },
    )
    expect(res.status).toBe(403)
    expect(await res.text()).toMatch(/started in another browser/)
  })
})

describe('who may come in', () => {
  it('SSO_DOMAINS admits only its domains', async () => {
    const env = oidcEnv({ SSO_DOMAINS: 'acme.example, acme.test' })
    const outside = await oidcSignIn(env, {
      sub: 'o',
      email: 'mallory@evil.example',
      email_verified: true,
    })
    expect(outside.status).toBe(403)
    expect(await outside.text()).toMatch(
      /only some email domains, and evil\.example is not one of them/,
    )
    const inside = await oidcSignIn(env, { sub: 'i', email: unique('alice'), email_verified: true })
    expect(inside.status).toBe(302)
  })

  it('SSO_WORKSPACE: a newcomer joins the team with its role, and starts there', async () => {
    const owner = await newAccount()
    const team = await newTeam(owner, 'Acme')
    const env = oidcEnv({ SSO_WORKSPACE: `${team}:editor` })
    const res = await oidcSignIn(env, { sub: 'w', email: unique('bob'), email_verified: true })
    const person = await me(sessionOf(res)!)
    expect(person.workspace).toMatchObject({ workspace_id: team, role: 'editor' })
    const key = await keyIn(owner, team)
    const audit = await json(await call('/v1/audit?action=member.joined', { key }))
    expect(audit.events).toEqual([
      expect.objectContaining({
        actor: expect.objectContaining({ kind: 'member', name: person.user.email }),
        details: expect.objectContaining({ role: 'editor', by: 'single sign-on' }),
      }),
    ])
  })

  it('SSO_WORKSPACE joins only accounts made by that sign-in, and never a removed member again', async () => {
    const owner = await newAccount()
    const team = await newTeam(owner, 'Acme')
    const ownerKey = await keyIn(owner, team)
    const env = oidcEnv({ SSO_WORKSPACE: `${team}:editor` })
    const memberIds = async () =>
      (await json(await call(`/v1/workspaces/${team}/members`, { key: ownerKey }))).members.map(
        (m: { user_id: string }) => m.user_id,
      )
    // A password account's first SSO sign-in signs into it, and joins nothing.
    const account = await newAccount()
    const bound = await oidcSignIn(env, { sub: 'p1', email: account.email, email_verified: true })
    expect((await me(sessionOf(bound)!)).workspace.workspace_id).toBe(account.workspaceId)
    expect(await memberIds()).not.toContain(account.userId)
    // A newcomer joins; removed, signing in again (by this provider or a second identity of
    // theirs) does not bring them back: an invite does.
    const email = unique('rem')
    const first = await oidcSignIn(env, { sub: 'r1', email, email_verified: true })
    const person = await json(await call('/v1/me', { key: await newKey(sessionOf(first)!) }))
    expect(await memberIds()).toContain(person.user.user_id)
    const removed = await call(`/v1/workspaces/${team}/members/${person.user.user_id}`, {
      method: 'DELETE',
      key: ownerKey,
    })
    expect(removed.status).toBe(200)
    for (const sub of ['r1', 'r2']) {
      const again = await oidcSignIn(env, { sub, email, email_verified: true })
      expect(again.status).toBe(302)
      expect((await me(sessionOf(again)!)).workspace.workspace_id).not.toBe(team)
    }
    expect(await memberIds()).not.toContain(person.user.user_id)
  })

  it('a key made after signing in by SSO is bound by the role, as any other key', async () => {
    const owner = await newAccount()
    const team = await newTeam(owner, 'Acme')
    const env = oidcEnv({ SSO_WORKSPACE: `${team}:editor` })
    const res = await oidcSignIn(env, { sub: 'k', email: unique('kim'), email_verified: true })
    const cookie = sessionOf(res)!
    const key = await newKey(cookie)
    const { user_id } = (await json(await call('/v1/me', { key }))).user
    expect((await newCanvas(key, 'by an editor')).canvas_id).toBeTruthy()
    // Demoted by the team's owner: the same key reads, and writes nothing, at once.
    const demoted = await call(`/v1/workspaces/${team}/members/${user_id}`, {
      method: 'PATCH',
      key: await keyIn(owner, team),
      json: { role: 'viewer' },
    })
    expect(demoted.status).toBe(200)
    expect((await call('/v1/canvases', { key })).status).toBe(200)
    const form = new FormData()
    form.append('file', new File(['x'], 'x.txt', { type: 'text/plain' }))
    expect((await call('/v1/canvases', { method: 'POST', key, body: form })).status).toBe(403)
  })

  it('PASSWORD_LOGIN=off refuses passwords once SSO is configured, and only then', async () => {
    const account = await newAccount()
    const env = oidcEnv({ PASSWORD_LOGIN: 'off' })
    const fields = { email: account.email, password: account.password }
    expect((await call('/login', { ...formPost(fields), env })).status).toBe(403)
    expect(
      (await call('/signup', { ...formPost({ ...fields, email: unique('n') }), env })).status,
    ).toBe(403)
    const page = await (await call('/login', { env })).text()
    expect(page).toContain('Continue with Acme SSO')
    expect(page).not.toContain('name="password"')
    // Nor does Settings set or change one: not an account's own, not an SSO account's first.
    const csrf = await csrfOf(account.cookie)
    const change = { _csrf: csrf, current: account.password, password: 'a new long password' }
    const changed = await call('/settings/password', {
      ...formPost(change),
      cookie: account.cookie,
      env,
    })
    expect(changed.status).toBe(403)
    expect(await changed.text()).toContain('single sign-on only')
    const still = await call('/login', { ...formPost(fields), env: { PASSWORD_LOGIN: 'off' } })
    expect(still.status).toBe(302)
    // Without a provider, passwords stay: a deployment is never left with no way in.
    const alone = { PASSWORD_LOGIN: 'off' }
    expect((await call('/login', { ...formPost(fields), env: alone })).status).toBe(302)
  })

  it('a half-configured provider or an http issuer beyond loopback stops the service, naming it', async () => {
    const half = await call('/login', { env: { OIDC_ISSUER: 'https://id.acme.example' } })
    expect(half.status).toBe(500)
    expect(await half.text()).toMatch(
      /OpenID Connect is half configured: OIDC_CLIENT_ID, OIDC_CLIENT_SECRET/,
    )
    const plain = await call('/login', {
      env: { ...oidcEnv(), OIDC_ISSUER: 'http://id.acme.example' },
    })
    expect(await plain.text()).toMatch(/OIDC_ISSUER must be an https URL/)
  })
})

describe('Cloudflare Access', () => {
  it('signs in the person a valid token names, once; a known email is their account', async () => {
    const env = accessEnv('team-valid')
    const email = unique('carol')
    const token = await accessToken('team-valid', env.ACCESS_AUD, email)
    const res = await call('/settings', { env, headers: { 'Cf-Access-Jwt-Assertion': token } })
    expect(res.status).toBe(200)
    expect(await res.text()).toContain(email)
    expect((await me(sessionOf(res)!)).user.email).toBe(email)
    const account = await newAccount()
    const known = await accessToken('team-valid', env.ACCESS_AUD, account.email)
    const mine = await call('/', { env, headers: { Cookie: `CF_Authorization=${known}` } })
    expect((await me(sessionOf(mine)!)).workspace.workspace_id).toBe(account.workspaceId)
  })

  const refusals: [Tamper | 'other-team', RegExp][] = [
    ['audience', /another application/],
    ['other-team', /another issuer/],
    ['expired', /expired/],
    ['impostor', /signature does not verify/],
    ['none', /algorithm is not allowed|not a signed token|not a valid token/],
    ['unknown-kid', /key the provider does not publish/],
  ]
  for (const [tamper, why] of refusals) {
    it(`refuses a token made wrong by ${tamper} with a page saying why`, async () => {
      const env = accessEnv('team-refusals')
      const team = tamper === 'other-team' ? 'another-team' : 'team-refusals'
      const token = await accessToken(
        team,
        env.ACCESS_AUD,
        unique('eve'),
        tamper === 'other-team' ? undefined : tamper,
      )
      await newAccount()
      const res = await call('/login', { env, headers: { 'Cf-Access-Jwt-Assertion': token } })
      expect(res.status).toBe(403)
      expect(await res.text()).toMatch(why)
      expect(sessionOf(res)).toBeNull()
      // A page that needs a session goes to that login page, as without a token.
      const page = await call('/settings', { env, headers: { 'Cf-Access-Jwt-Assertion': token } })
      expect(page.status).toBe(302)
      expect(page.headers.get('Location')).toBe('/login?next=%2Fsettings')
      expect(sessionOf(page)).toBeNull()
    })
  }

  it('ignores a stale cookie on the pages anyone may see: share links, public canvases, docs', async () => {
    const env = accessEnv('team-stale')
    const owner = await newAccount()
    const canvas = await newCanvas(owner.key, '# Shared')
    const share = await json(
      await call(`/v1/canvases/${canvas.canvas_id}/shares`, {
        method: 'POST',
        key: owner.key,
        json: {},
      }),
    )
    const open = await newCanvas(owner.key, '# Public')
    await call(`/v1/canvases/${open.canvas_id}`, {
      method: 'PATCH',
      key: owner.key,
      json: { visibility: 'public' },
    })
    const stale = await accessToken('team-stale', env.ACCESS_AUD, unique('gone'), 'expired')
    const cookie = `CF_Authorization=${stale}`
    for (const path of ['/', `/s/${share.token}`, `/c/${open.canvas_id}`, '/docs']) {
      const res = await call(path, { env, headers: { Cookie: cookie } })
      expect(res.status, path).toBe(200)
      expect(sessionOf(res), path).toBeNull()
    }
    const login = await call('/login', { env, headers: { Cookie: cookie } })
    expect(login.status).toBe(403)
    expect(await login.text()).toContain('Cloudflare Access did not sign you in')
  })

  it('fetches the team’s keys again for a kid it has not seen: a rotation needs no restart', async () => {
    const env = accessEnv('team-rotation')
    const first = await accessToken('team-rotation', env.ACCESS_AUD, unique('dan'))
    expect((await call('/', { env, headers: { 'Cf-Access-Jwt-Assertion': first } })).status).toBe(
      200,
    )
    // Past the cooldown between two fetches of the keys.
    await new Promise((resolve) => setTimeout(resolve, 2_100))
    const rotated = await accessToken('team-rotation', env.ACCESS_AUD, unique('dan'), 'rotated')
    const res = await call('/', { env, headers: { 'Cf-Access-Jwt-Assertion': rotated } })
    expect(res.status).toBe(200)
    expect(sessionOf(res)).not.toBeNull()
  })
})

describe('hostile input', () => {
  const text = fc.oneof(wild, huge(5000), fc.constant('a.b.c'), fc.constant('e30.e30.'))

  it('a token, a cookie or a callback of any shape is refused, never a 500 or a session', async () => {
    const access = accessEnv('team-hostile')
    const oidc = oidcEnv()
    await fc.assert(
      fc.asyncProperty(text, text, text, async (given, code, state) => {
        // An empty header or cookie is no token: the page is answered as without Access.
        // Lone surrogates have no URL encoding: as a browser would, they become U+FFFD.
        const token = (given || 'x').replace(/[\ud800-\udfff]/g, '\ufffd')
        const header = token.replace(/[^\x21-\x7e]/g, '') || 'x'
        const asHeader = await call('/login', {
          env: access,
          headers: { 'Cf-Access-Jwt-Assertion': header },
        })
        const asCookie = await call('/login', {
          env: access,
          headers: { Cookie: `CF_Authorization=${encodeURIComponent(token)}` },
        })
        const query = new URLSearchParams({ code, state, error_description: token })
        const callback = await call(`/auth/oidc/callback?${query}`, { env: oidc })
        const next = await call(`/auth/oidc?next=${encodeURIComponent(token)}`, { env: oidc })
        for (const res of [asHeader, asCookie, callback]) {
          expect(res.status).toBe(403)
          expect(sessionOf(res)).toBeNull()
          expect(await res.text()).not.toContain('<script>x</script>')
        }
        // Whatever `next` says, the sign-in goes to the provider, and comes back only here.
        expect(next.status).toBe(302)
        expect(next.headers.get('Location')).toMatch(new RegExp(`^${providerUrl()}/authorize\\?`))
      }),
      { numRuns: runs(15) },
    )
  })
})
