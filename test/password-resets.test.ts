import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import {
  call,
  csrfOf,
  formPost,
  json,
  newAccount,
  sessionCookie,
  withFlash,
  type Account,
} from './support/api'
import { joinedAs, keyIn, newTeam } from './support/teams'
import { oidcEnv } from './support/sso'

// Reset links (docs/teams.md): an admin makes a one-time link for a member who forgot their
// password; the member chooses a new one on the page it opens. Who may make one, what it opens,
// and that it works once, within its time.

const logIn = (email: string, password: string) => call('/login', formPost({ email, password }))

async function makeLink(by: Account, workspaceId: string, userId: string, envs?: object) {
  return call(`/v1/workspaces/${workspaceId}/members/${userId}/reset-link`, {
    method: 'POST',
    key: by.key,
    ...(envs && { env: envs }),
  })
}

async function linkFor(by: Account, workspaceId: string, userId: string) {
  const res = await makeLink(by, workspaceId, userId)
  expect(res.status, await res.clone().text()).toBe(201)
  const made = await json(res)
  return {
    ...made,
    token: made.url.split('/reset/')[1] as string,
    path: new URL(made.url).pathname,
  }
}

const choose = (path: string, password: string) => call(path, formPost({ password }))

describe('password reset links', () => {
  it('let a member choose a new password once, ending their sessions, and are audited', async () => {
    const owner = await newAccount()
    const team = await newTeam(owner)
    const { person } = await joinedAs(owner, team, 'editor')
    const link = await linkFor(owner, team, person.userId)
    expect(link.url).toMatch(/^http:\/\/canvas\.test\/reset\/[A-Za-z0-9]{32}$/)
    expect(Date.parse(link.expires_at) - Date.now()).toBeGreaterThan(23 * 3600_000)

    const page = await call(link.path)
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain(person.email)
    expect(html).toContain('autocomplete="new-password"')

    const done = await choose(link.path, 'chosen anew today')
    expect(done.status).toBe(302)
    expect(done.headers.get('Location')).toBe('/')
    const cookie = sessionCookie(done)
    const home = await call('/', { cookie: withFlash({ cookie }, done) })
    expect(await home.text()).toContain('Your new password is set')
    // Their earlier session is over; the old password opens nothing, the new one does.
    expect((await call('/settings', { cookie: person.cookie })).status).toBe(302)
    expect((await logIn(person.email, person.password)).status).toBe(401)
    expect((await logIn(person.email, 'chosen anew today')).status).toBe(302)
    // Once only.
    expect((await call(link.path)).status).toBe(404)
    const again = await choose(link.path, 'another one again')
    expect(again.status).toBe(404)
    expect(await again.text()).toContain('This reset link no longer works')

    const audit = await json(await call('/v1/audit', { key: await keyIn(owner, team) }))
    const actions = audit.events.map((e: { action: string }) => e.action)
    expect(actions).toContain('auth.password_reset_link')
    expect(actions).toContain('auth.password_reset')
    const made = audit.events.find(
      (e: { action: string }) => e.action === 'auth.password_reset_link',
    )
    expect(made.details).toEqual({ email: person.email, expires_at: link.expires_at })
    expect(JSON.stringify(audit)).not.toContain(link.token)
  })

  it('keep only the newest link for a person, and never work once expired', async () => {
    const owner = await newAccount()
    const team = await newTeam(owner)
    const { person } = await joinedAs(owner, team, 'viewer')
    const first = await linkFor(owner, team, person.userId)
    const second = await linkFor(owner, team, person.userId)
    expect((await call(first.path)).status).toBe(404)
    expect((await call(second.path)).status).toBe(200)
    await env.DB.prepare('UPDATE password_resets SET expires_at = ? WHERE user_id = ?')
      .bind(Date.now() - 1, person.userId)
      .run()
    expect((await call(second.path)).status).toBe(404)
    expect((await choose(second.path, 'too late for this')).status).toBe(404)
    expect((await logIn(person.email, person.password)).status).toBe(302)
  })

  it('refuse a password signup would refuse, and the link still works after', async () => {
    const owner = await newAccount()
    const team = await newTeam(owner)
    const { person } = await joinedAs(owner, team, 'editor')
    const link = await linkFor(owner, team, person.userId)
    const res = await choose(link.path, 'short')
    expect(res.status).toBe(400)
    expect(await res.text()).toContain('at least 8 characters')
    expect((await choose(link.path, 'long enough now')).status).toBe(302)
  })

  it('are made only by a member ranking above the person, here and in their other teams', async () => {
    const owner = await newAccount()
    const team = await newTeam(owner)
    const { person: admin } = await joinedAs(owner, team, 'admin')
    const { person: editor } = await joinedAs(owner, team, 'editor')
    const { person: other } = await joinedAs(owner, team, 'admin')
    const adminKey = await keyIn(admin, team)
    const editorKey = await keyIn(editor, team)
    // An editor makes none; an admin none for an admin or an owner, nor for themself.
    expect((await makeLink({ ...editor, key: editorKey }, team, admin.userId)).status).toBe(403)
    expect((await makeLink({ ...admin, key: adminKey }, team, other.userId)).status).toBe(403)
    expect((await makeLink({ ...admin, key: adminKey }, team, owner.userId)).status).toBe(403)
    const self = await makeLink({ ...admin, key: adminKey }, team, admin.userId)
    expect(self.status).toBe(403)
    expect((await json(self)).error.message).toMatch(/your own password in Settings/)
    // For an editor, yes; an owner for an admin, yes.
    expect((await makeLink({ ...admin, key: adminKey }, team, editor.userId)).status).toBe(201)
    expect((await makeLink(owner, team, other.userId)).status).toBe(201)
    // Not for someone outside the workspace.
    const stranger = await newAccount()
    const outside = await makeLink(owner, team, stranger.userId)
    expect(outside.status).toBe(404)
    expect((await json(outside)).error.code).toBe('member_not_found')

    // The editor is an owner of a team of their own: alone there, the link opens nobody's else.
    const theirs = await newTeam(editor)
    expect((await makeLink({ ...admin, key: adminKey }, team, editor.userId)).status).toBe(201)
    // With someone else in it, a link would open that team too, so this admin makes none.
    await joinedAs(editor, theirs, 'viewer')
    const refused = await makeLink({ ...admin, key: adminKey }, team, editor.userId)
    expect(refused.status).toBe(403)
    expect((await json(refused)).error.message).toMatch(/other workspaces/)
  })

  it("count a personal workspace others were invited into as another team's", async () => {
    const owner = await newAccount()
    const team = await newTeam(owner)
    const { person: admin } = await joinedAs(owner, team, 'admin')
    const { person: editor } = await joinedAs(owner, team, 'editor')
    const adminKey = await keyIn(admin, team)
    // The editor's personal workspace is theirs alone: the link opens nobody else's canvases.
    expect((await makeLink({ ...admin, key: adminKey }, team, editor.userId)).status).toBe(201)
    // Once they invite someone into it, a reset link would open that person's canvases there.
    await joinedAs(editor, editor.workspaceId, 'editor')
    const refused = await makeLink({ ...admin, key: adminKey }, team, editor.userId)
    expect(refused.status).toBe(403)
    expect((await json(refused)).error).toMatchObject({
      code: 'forbidden',
      message: expect.stringMatching(/other workspaces/),
    })
    // Its owner (the editor) outranks nobody there but themself: the team's owner still may not.
    expect((await makeLink(owner, team, editor.userId)).status).toBe(403)
  })

  it('are not made, nor used, where passwords open nothing', async () => {
    const owner = await newAccount()
    const team = await newTeam(owner)
    const { person } = await joinedAs(owner, team, 'editor')
    const link = await linkFor(owner, team, person.userId)
    const off = oidcEnv({ PASSWORD_LOGIN: 'off' })
    expect((await makeLink(owner, team, person.userId, off)).status).toBe(403)
    const used = await call(link.path, { ...formPost({ password: 'not to be set' }), env: off })
    expect(used.status).toBe(403)
    expect((await logIn(person.email, person.password)).status).toBe(302)
  })

  it('are made from the Members page, which shows the link once', async () => {
    const owner = await newAccount()
    const { person } = await joinedAs(owner, owner.workspaceId, 'viewer')
    const page = await (await call('/settings/members', { cookie: owner.cookie })).text()
    expect(page).toContain(`/settings/members/${person.userId}/reset-link`)
    // Not against the owner themself.
    expect(page).not.toContain(`/settings/members/${owner.userId}/reset-link`)
    const res = await call(`/settings/members/${person.userId}/reset-link`, {
      ...formPost({ _csrf: await csrfOf(owner.cookie) }),
      cookie: owner.cookie,
    })
    expect(res.status).toBe(302)
    const after = await (await call('/settings/members', { cookie: withFlash(owner, res) })).text()
    const url = /http:\/\/canvas\.test\/reset\/[A-Za-z0-9]{32}/.exec(after)?.[0]
    expect(url).toBeTruthy()
    expect((await call(new URL(url!).pathname)).status).toBe(200)
  })
})
