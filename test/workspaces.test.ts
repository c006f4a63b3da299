import { describe, expect, it } from 'vitest'
import {
  browse,
  call,
  csrfOf,
  errorOf,
  formPost,
  json,
  newAccount,
  newCanvas,
  newKey,
  sessionCookie,
  withFlash,
  type Account,
} from './support/api'
import { newTeam } from './support/teams'

// Workspaces for teams (docs/teams.md): members and roles, invites, and roles that hold at every
// request, for keys and sessions alike.

const TOKEN_URL = /^http:\/\/canvas\.test\/join\/([A-Za-z0-9]{32})$/

async function invite(key: string, workspaceId: string, body: Record<string, unknown>) {
  const res = await call(`/v1/workspaces/${workspaceId}/invites`, {
    method: 'POST',
    key,
    json: body,
  })
  expect(res.status, await res.clone().text()).toBe(201)
  const made = await json(res)
  return { ...made, token: TOKEN_URL.exec(made.url)![1] as string }
}

const join = (cookie: string, token: string) =>
  call(`/auth/join/${token}`, { method: 'POST', cookie })

/** A team with its owner, and a second person who joined with `role` and has a key for it. */
async function teamWith(role: string) {
  const owner = await newAccount()
  const workspaceId = await newTeam(owner)
  const person = await newAccount()
  const { token } = await invite(owner.key, workspaceId, { role })
  expect((await join(person.cookie, token)).status).toBe(200)
  const res = await call('/auth/keys', {
    method: 'POST',
    cookie: person.cookie,
    // A viewer cannot make a key that writes.
    json: {
      name: 'team key',
      workspace_id: workspaceId,
      scopes: role === 'viewer' ? ['read'] : ['read', 'write'],
    },
  })
  expect(res.status, await res.clone().text()).toBe(201)
  const teamKey = (await json(res)).key as string
  const ownerKey = await teamKeyOf(owner, workspaceId)
  return { owner, ownerKey, person, teamKey, workspaceId }
}

async function teamKeyOf(account: Account, workspaceId: string) {
  const res = await call('/auth/keys', {
    method: 'POST',
    cookie: account.cookie,
    json: { name: 'owner team key', workspace_id: workspaceId },
  })
  return (await json(res)).key as string
}

const memberPath = (workspaceId: string, userId: string) =>
  `/v1/workspaces/${workspaceId}/members/${userId}`

describe('workspaces', () => {
  it('every account has its personal workspace, as owner; more can be made and renamed', async () => {
    const owner = await newAccount()
    const listed = await json(await call('/v1/workspaces', { key: owner.key }))
    expect(listed.workspaces).toEqual([
      {
        workspace_id: owner.workspaceId,
        name: owner.email.split('@')[0],
        role: 'owner',
        personal: true,
        created_at: expect.any(String),
      },
    ])
    const teamId = await newTeam(owner, '  Research  ')
    const renamed = await call(`/v1/workspaces/${teamId}`, {
      method: 'PATCH',
      key: owner.key,
      json: { name: 'Research team' },
    })
    expect(await json(renamed)).toMatchObject({ name: 'Research team', role: 'owner' })
    const names = (await json(await call('/v1/workspaces', { key: owner.key }))).workspaces.map(
      (w: any) => [w.name, w.personal],
    )
    expect(names).toEqual([
      [owner.email.split('@')[0], true],
      ['Research team', false],
    ])
  })

  it('a name that spoofs, a role that is none, a long invite and someone else’s workspace are refused', async () => {
    const owner = await newAccount()
    const teamId = await newTeam(owner)
    const bad = async (path: string, method: string, body: unknown, code: string) => {
      const res = await call(path, { method, key: owner.key, json: body })
      expect([res.status, (await json(res)).error.code], JSON.stringify(body)).toEqual([
        code === 'not_found' ? 404 : 400,
        code,
      ])
    }
    await bad('/v1/workspaces', 'POST', { name: 'Team\u202eevil' }, 'invalid_request')
    await bad('/v1/workspaces', 'POST', { name: '   ' }, 'invalid_request')
    // A control at an end is refused, not trimmed away unseen.
    await bad('/v1/workspaces', 'POST', { name: '\uffff\r\n' }, 'invalid_request')
    await bad('/v1/workspaces', 'POST', { name: 'x'.repeat(101) }, 'invalid_request')
    await bad('/v1/workspaces', 'POST', { name: 'a', owner: 'b' }, 'invalid_request')
    const invites = `/v1/workspaces/${teamId}/invites`
    await bad(invites, 'POST', { role: 'superuser' }, 'invalid_request')
    await bad(invites, 'POST', { role: 'viewer', expires_in: '31d' }, 'invalid_request')
    await bad(invites, 'POST', { role: 'viewer', email: 'not an email' }, 'invalid_request')
    const stranger = await newAccount()
    for (const path of [`/v1/workspaces/${teamId}/members`, `/v1/workspaces/..%2F/members`]) {
      const res = await call(path, { key: stranger.key })
      expect(await json(res)).toEqual(
        errorOf('not_found', 'workspace_id: no workspace of yours has this id'),
      )
    }
  })
})

describe('invites', () => {
  it('a link joins once; the team’s canvases are then the member’s to see', async () => {
    const owner = await newAccount()
    const teamId = await newTeam(owner)
    const ownerKey = await teamKeyOf(owner, teamId)
    const made = await newCanvas(ownerKey, 'team plan', { title: 'Plan' })
    const sent = await invite(owner.key, teamId, { role: 'editor' })
    expect(sent).toMatchObject({
      role: 'editor',
      email: null,
      url: expect.stringMatching(TOKEN_URL),
    })
    const pending = await json(await call(`/v1/workspaces/${teamId}/invites`, { key: owner.key }))
    expect(pending.invites).toEqual([
      {
        invite_id: sent.invite_id,
        role: 'editor',
        email: null,
        expires_at: sent.expires_at,
        created_at: sent.created_at,
      },
    ])
    expect(Date.parse(sent.expires_at) - Date.parse(sent.created_at)).toBe(7 * 86400_000)

    const person = await newAccount()
    const joined = await join(person.cookie, sent.token)
    expect(await json(joined)).toEqual({
      workspace: { workspace_id: teamId, name: 'Team', role: 'editor' },
    })
    const again = await join((await newAccount()).cookie, sent.token)
    expect((await json(again)).error.code).toBe('invite_not_found')
    const members = await json(await call(`/v1/workspaces/${teamId}/members`, { key: person.key }))
    expect(members.members.map((m: any) => [m.email, m.role])).toEqual([
      [owner.email, 'owner'],
      [person.email, 'editor'],
    ])
    // The session moved into the team: a key made now acts there, and sees the owner's canvas.
    const key = await newKey(person.cookie)
    const listed = await json(await call('/v1/canvases', { key }))
    expect(listed.canvases.map((c: any) => c.canvas_id)).toEqual([made.canvas_id])
    const me = await json(await call('/v1/me', { key }))
    expect(me.workspace).toEqual({ workspace_id: teamId, name: 'Team', role: 'editor' })
  })

  it('an invite bound to an email admits only that address; revoked, it admits nobody', async () => {
    const owner = await newAccount()
    const teamId = await newTeam(owner)
    const person = await newAccount()
    const bound = await invite(owner.key, teamId, { role: 'viewer', email: person.email })
    const other = await newAccount()
    const wrong = await join(other.cookie, bound.token)
    expect([wrong.status, (await json(wrong)).error.message]).toEqual([
      403,
      `this invite is for ${person.email}; sign in with that address`,
    ])
    expect((await join(person.cookie, bound.token)).status).toBe(200)
    const revoked = await invite(owner.key, teamId, { role: 'viewer' })
    const path = `/v1/workspaces/${teamId}/invites/${revoked.invite_id}`
    expect((await call(path, { method: 'DELETE', key: owner.key })).status).toBe(200)
    expect((await call(path, { method: 'DELETE', key: owner.key })).status).toBe(404)
    expect((await json(await join(other.cookie, revoked.token))).error.code).toBe(
      'invite_not_found',
    )
    for (const token of ['short', 'x'.repeat(32), 'y'.repeat(300)]) {
      expect((await json(await join(other.cookie, token))).error.code).toBe('invite_not_found')
    }
    // A path that is no token at all is no route.
    expect((await join(other.cookie, '%2e%2e')).status).toBe(404)
  })

  it('signs a person up through an invite while signup is closed, into the team', async () => {
    const owner = await newAccount()
    const teamId = await newTeam(owner)
    const sent = await invite(owner.key, teamId, { role: 'viewer', email: 'newcomer@example.com' })
    const closed = { SIGNUP: 'closed' }
    const signup = (email: string, inviteToken?: string) =>
      call('/auth/signup', {
        method: 'POST',
        env: closed,
        json: { email, password: 'a long password', invite: inviteToken },
      })
    expect((await json(await signup('newcomer@example.com'))).error.code).toBe('signup_closed')
    const wrongAddress = await signup('someone@example.com', sent.token)
    expect(wrongAddress.status).toBe(403)
    const res = await signup('newcomer@example.com', sent.token)
    expect(res.status).toBe(201)
    expect((await json(res)).workspace).toEqual({
      workspace_id: teamId,
      name: 'Team',
      role: 'viewer',
    })
    const cookie = sessionCookie(res)
    const key = await newKey(cookie, ['read'])
    const me = await json(await call('/v1/me', { key }))
    expect(me.workspace.role).toBe('viewer')
    const theirs = await json(await call('/v1/workspaces', { key }))
    expect(theirs.workspaces.map((w: any) => [w.role, w.personal])).toEqual([
      ['owner', true],
      ['viewer', false],
    ])
  })

  it('only admins invite, and only owners invite owners', async () => {
    const { person, workspaceId } = await teamWith('editor')
    const asEditor = await call(`/v1/workspaces/${workspaceId}/invites`, {
      method: 'POST',
      key: person.key,
      json: { role: 'viewer' },
    })
    expect([asEditor.status, (await json(asEditor)).error.message]).toEqual([
      403,
      'managing this workspace needs the admin role; yours in “Team” is editor',
    ])
    const admin = await teamWith('admin')
    const owners = await call(`/v1/workspaces/${admin.workspaceId}/invites`, {
      method: 'POST',
      key: admin.person.key,
      json: { role: 'owner' },
    })
    expect(owners.status).toBe(403)
    await invite(admin.person.key, admin.workspaceId, { role: 'admin' })
  })
})

describe('roles hold at every request', () => {
  it('a viewer’s key reads and writes nothing, whatever its scopes; promoted, it writes', async () => {
    const { owner, ownerKey, person, teamKey, workspaceId } = await teamWith('editor')
    await call(memberPath(workspaceId, person.userId), {
      method: 'PATCH',
      key: owner.key,
      json: { role: 'viewer' },
    })
    expect((await json(await call('/v1/me', { key: teamKey }))).key.scopes).toEqual(['read'])
    const write = await call('/v1/canvases', {
      method: 'POST',
      key: teamKey,
      json: { content: 'x', ext: 'txt' },
    })
    expect([write.status, (await json(write)).error.code]).toEqual([403, 'forbidden'])
    const made = await newCanvas(ownerKey)
    expect((await call(`/v1/canvases/${made.canvas_id}`, { key: teamKey })).status).toBe(200)
    const writeKey = await call('/auth/keys', {
      method: 'POST',
      cookie: person.cookie,
      json: { name: 'w', scopes: ['write'], workspace_id: workspaceId },
    })
    expect(writeKey.status).toBe(403)

    const promote = await call(memberPath(workspaceId, person.userId), {
      method: 'PATCH',
      key: owner.key,
      json: { role: 'editor' },
    })
    expect(await json(promote)).toEqual({ user_id: person.userId, role: 'editor' })
    expect((await newCanvas(teamKey)).canvas_id).toMatch(/^[A-Za-z0-9]+$/)
  })

  it('demoting an editor narrows their key at once; removing them ends it, and their canvas stays', async () => {
    const { owner, ownerKey, person, teamKey, workspaceId } = await teamWith('editor')
    const theirs = await newCanvas(teamKey, 'by the editor')
    await call(memberPath(workspaceId, person.userId), {
      method: 'PATCH',
      key: owner.key,
      json: { role: 'viewer' },
    })
    const update = await call(`/v1/canvases/${theirs.canvas_id}`, {
      method: 'PATCH',
      key: teamKey,
      json: { title: 'mine still' },
    })
    expect(update.status).toBe(403)
    // Through the presign batch too, which writes before the key is judged.
    const presign = await call('/v1/upload/presign', {
      method: 'POST',
      key: teamKey,
      json: { sha256: 'a'.repeat(64), size: 1, ext: 'txt', mime: 'text/plain' },
    })
    expect(presign.status).toBe(403)

    const removed = await call(memberPath(workspaceId, person.userId), {
      method: 'DELETE',
      key: owner.key,
    })
    expect(await json(removed)).toEqual({ user_id: person.userId, role: 'viewer' })
    const after = await call(`/v1/canvases/${theirs.canvas_id}`, { key: teamKey })
    expect(after.status).toBe(401)
    const kept = await call(`/v1/canvases/${theirs.canvas_id}`, { key: ownerKey })
    expect((await json(kept)).owner_user_id).toBe(person.userId)
    // Their session lost the team; their own workspace is untouched.
    const keys = await json(await call('/auth/keys', { cookie: person.cookie }))
    expect(keys.keys.map((k: any) => k.name)).toEqual(['test key'])
    expect((await call('/v1/me', { key: person.key })).status).toBe(200)
    const switched = await call('/auth/switch', {
      method: 'POST',
      cookie: person.cookie,
      json: { workspace_id: workspaceId },
    })
    expect(switched.status).toBe(404)
  })

  it('the last owner can neither leave nor be demoted; a member may leave', async () => {
    const { owner, person, workspaceId } = await teamWith('admin')
    const leave = await call(memberPath(workspaceId, owner.userId), {
      method: 'DELETE',
      key: owner.key,
    })
    expect([leave.status, (await json(leave)).error.code]).toEqual([409, 'last_owner'])
    const demote = await call(memberPath(workspaceId, owner.userId), {
      method: 'PATCH',
      key: owner.key,
      json: { role: 'admin' },
    })
    expect(demote.status).toBe(409)
    // An admin cannot touch an owner, nor make one.
    const byAdmin = await call(memberPath(workspaceId, owner.userId), {
      method: 'DELETE',
      key: person.key,
    })
    expect(byAdmin.status).toBe(403)
    const second = await call(memberPath(workspaceId, person.userId), {
      method: 'PATCH',
      key: owner.key,
      json: { role: 'owner' },
    })
    expect(second.status).toBe(200)
    // With two owners, the first may go.
    expect(
      (await call(memberPath(workspaceId, owner.userId), { method: 'DELETE', key: owner.key }))
        .status,
    ).toBe(200)
    const unknown = await call(memberPath(workspaceId, owner.userId), {
      method: 'DELETE',
      key: person.key,
    })
    expect((await json(unknown)).error.code).toBe('member_not_found')
  })
})

describe('a viewer’s session', () => {
  it('reads the team’s canvas and comments on it, and changes nothing of it', async () => {
    const { owner, ownerKey, person, workspaceId } = await teamWith('viewer')
    const canvas = await newCanvas(ownerKey, 'the team plan')
    const switched = await call('/auth/switch', {
      method: 'POST',
      cookie: person.cookie,
      json: { workspace_id: workspaceId },
    })
    expect(await json(switched)).toMatchObject({ workspace_id: workspaceId, role: 'viewer' })
    const cookie = person.cookie
    expect((await browse(`/c/${canvas.canvas_id}`, { cookie })).status).toBe(200)
    const csrf = await csrfOf(cookie)
    const headers = { Accept: 'application/json', 'X-CSRF-Token': csrf }
    const presign = await call('/upload/presign', {
      method: 'POST',
      cookie,
      headers,
      json: { sha256: 'b'.repeat(64), ext: 'txt', size: 1, mime: 'text/plain' },
    })
    expect([presign.status, (await json(presign)).error.message]).toEqual([
      403,
      'Changing canvases needs the editor role; yours in “Team” is viewer.',
    ])
    const remove = await call(`/c/${canvas.canvas_id}/delete`, {
      ...formPost({ _csrf: csrf }),
      cookie,
    })
    expect(remove.status).toBe(403)
    const comment = await call(`/c/${canvas.canvas_id}/comments`, {
      method: 'POST',
      cookie,
      headers,
      json: { body: 'A question from a viewer' },
    })
    expect(comment.status).toBe(201)
    const { comment_id } = await json(comment)
    const resolve = await call(`/c/${canvas.canvas_id}/comments/${comment_id}/resolve`, {
      method: 'POST',
      cookie,
      headers,
    })
    expect(resolve.status).toBe(403)
    // Where the workspace's events go is the admins' to see.
    const settings = await (await browse('/settings', { cookie })).text()
    expect(settings).not.toContain('Webhooks')
    const theirs = await (await browse('/settings', { cookie: owner.cookie })).text()
    expect(theirs).toContain('Webhooks')
    expect((await call(`/v1/canvases/${canvas.canvas_id}`, { key: ownerKey })).status).toBe(200)
  })
})

describe('the web app', () => {
  it('an admin invites from Members; the link’s page joins a signed-in person in one click', async () => {
    const owner = await newAccount()
    const made = await call('/settings/members/workspaces', {
      ...formPost({ name: 'Design', _csrf: await csrfOf(owner.cookie) }),
      cookie: owner.cookie,
    })
    // Said beside the invite form of the new workspace, where one goes on.
    expect(made.headers.get('Location')).toBe('/settings/members#invites')
    const page = await (
      await browse('/settings/members', { cookie: withFlash(owner, made) })
    ).text()
    expect(page).toContain('“Design” is made, and you are in it')
    const said = page.indexOf('“Design” is made')
    expect(said).toBeGreaterThan(page.indexOf('id="invites"'))
    expect(said).toBeLessThan(page.indexOf('id="workspaces"'))
    const sent = await call('/settings/members/invites', {
      ...formPost({ role: 'viewer', expires_in: '1d', _csrf: await csrfOf(owner.cookie) }),
      cookie: owner.cookie,
    })
    expect(sent.status).toBe(302)
    const shown = await (
      await browse('/settings/members', { cookie: withFlash(owner, sent) })
    ).text()
    const link = /http:\/\/canvas\.test\/join\/([A-Za-z0-9]{32})/.exec(shown)
    expect(link, 'the link to copy').not.toBeNull()
    // Not signed in: the signup form, which carries the invite.
    const anonymous = await (await browse(`/join/${link![1]}`)).text()
    expect(anonymous).toContain('Join <bdi dir="auto">Design</bdi> as viewer')
    expect(anonymous).toContain(`name="invite" value="${link![1]}"`)
    // Signed in: one button.
    const person = await newAccount()
    const joinPage = await (await browse(`/join/${link![1]}`, { cookie: person.cookie })).text()
    expect(joinPage).toContain(`Join as ${person.email}`)
    const joined = await call(`/join/${link![1]}`, {
      ...formPost({ _csrf: await csrfOf(person.cookie) }),
      cookie: person.cookie,
    })
    expect(joined.headers.get('Location')).toBe('/')
    const home = await (await browse('/', { cookie: withFlash(person, joined) })).text()
    expect(home).toContain('You joined “Design” as viewer')
    const again = await browse(`/join/${link![1]}`, { cookie: person.cookie })
    expect(again.status).toBe(404)
    expect(await again.text()).toContain('This invite no longer works')
  })

  it('signs a person up from an invite’s page while signup is closed', async () => {
    const owner = await newAccount()
    const teamId = await newTeam(owner)
    const sent = await invite(owner.key, teamId, { role: 'editor' })
    const res = await call('/signup', {
      ...formPost({ email: 'joiner@example.com', password: 'a long password', invite: sent.token }),
      env: { SIGNUP: 'closed' },
    })
    expect(res.status).toBe(302)
    const cookie = sessionCookie(res)
    const members = await (await browse('/settings/members', { cookie })).text()
    expect(members).toContain('You are an editor here')
    const spent = await call('/signup', {
      ...formPost({ email: 'late@example.com', password: 'a long password', invite: sent.token }),
      env: { SIGNUP: 'closed' },
    })
    expect(spent.status).toBe(404)
  })
})
