import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import {
  browse,
  bytesOf,
  call,
  csrfOf,
  formPost,
  errorOf,
  json,
  metaOf,
  newAccount,
  newCanvas,
  presignAndPut,
  upload,
  withFlash,
  type Account,
} from './support/api'
import { sweepUntilDone } from './support/state'
import { connect, ok } from './support/mcp'
import { joinedAs, keyIn, newTeam } from './support/teams'

// A workspace's own settings and its deletion (docs/teams.md): the default life of new canvases,
// the storage quota, and deleting a team's workspace with everything in it.

const HOUR = 3600_000

async function team(owner: Account, name = 'Settings') {
  const workspaceId = await newTeam(owner, name)
  const key = await keyIn(owner, workspaceId, 'team key')
  return { workspaceId, key, path: `/v1/workspaces/${workspaceId}` }
}

/** A member of `role` with a key of every scope: joined as an editor to make it, then given the role. */
async function member(owner: Account, workspaceId: string, role: string) {
  const { person } = await joinedAs(owner, workspaceId, 'editor')
  const key = await keyIn(person, workspaceId, 'member key')
  if (role !== 'editor') {
    await call(`/v1/workspaces/${workspaceId}/members/${person.userId}`, {
      method: 'PATCH',
      key: owner.key,
      json: { role },
    })
  }
  return { person, key }
}

const lifeOf = (canvas: { created_at: string; expires_at: string | null }) =>
  canvas.expires_at === null ? null : Date.parse(canvas.expires_at) - Date.parse(canvas.created_at)

describe('the default life of new canvases', () => {
  it('follows the workspace’s setting unless the request says, and usage names it', async () => {
    const owner = await newAccount()
    const { key, path } = await team(owner)
    expect(lifeOf(await newCanvas(key))).toBe(24 * HOUR)
    const week = await call(path, {
      method: 'PATCH',
      key: owner.key,
      json: { default_expires_in: '7d' },
    })
    expect(week.status).toBe(200)
    expect(await json(week)).toMatchObject({ default_expires_in: '7d', quota_bytes: null })
    expect(lifeOf(await newCanvas(key))).toBe(7 * 24 * HOUR)
    // A request that says temporary gets the deployment's life; one that says permanent, none.
    expect(lifeOf(await newCanvas(key, 'x', { permanent: false }))).toBe(24 * HOUR)
    await call(path, { method: 'PATCH', key: owner.key, json: { default_expires_in: null } })
    expect(lifeOf(await newCanvas(key))).toBeNull()
    const usage = await json(await call('/v1/usage', { key }))
    expect(usage.limits).toMatchObject({ default_expires_in: null, quota_bytes: null })
    // Another workspace keeps its own default.
    expect(lifeOf(await newCanvas(owner.key))).toBe(24 * HOUR)
  })

  it('is followed by MCP, and the dashboard says which applies, with a way to change it for admins', async () => {
    const owner = await newAccount()
    const { workspaceId, key, path } = await team(owner)
    const editor = await member(owner, workspaceId, 'editor')
    await call(path, { method: 'PATCH', key: owner.key, json: { default_expires_in: '7d' } })
    const agent = await connect(editor.key)
    const made = await ok(agent, 'publish', { content: '# Weekly', filename: 'weekly.md' })
    expect(lifeOf(made)).toBe(7 * 24 * HOUR)
    const temporary = await ok(agent, 'publish', {
      content: '# Draft',
      filename: 'draft.md',
      permanent: false,
    })
    expect(lifeOf(temporary)).toBe(24 * HOUR)
    const said = async (cookie: string) => {
      const page = await (await browse('/', { cookie })).text()
      return /<p class="hint" id="new-canvas-life">(.*?)<\/p>/s.exec(page)?.[1] ?? ''
    }
    for (const cookie of [owner.cookie, editor.person.cookie]) {
      await call('/auth/switch', { method: 'POST', cookie, json: { workspace_id: workspaceId } })
    }
    expect(await said(owner.cookie)).toContain(
      'New canvases here expire after 7 days unless made permanent.',
    )
    expect(await said(owner.cookie)).toContain('href="/settings/members#settings"')
    // An editor reads what applies, without a link to a page that is not theirs to change.
    expect(await said(editor.person.cookie)).toContain('expire after 7 days')
    expect(await said(editor.person.cookie)).not.toContain('href=')
    await call(path, { method: 'PATCH', key: owner.key, json: { default_expires_in: null } })
    expect(await said(owner.cookie)).toContain('New canvases here are kept until deleted.')
    // A personal workspace keeps the deployment's default.
    const alone = await newAccount()
    expect(await said(alone.cookie)).toContain('expire after 24 hours')
  })

  it('is an admin’s to change, with the change in the audit log', async () => {
    const owner = await newAccount()
    const { workspaceId, path, key } = await team(owner)
    const editor = await member(owner, workspaceId, 'editor')
    const refused = await call(path, {
      method: 'PATCH',
      key: editor.key,
      json: { default_expires_in: '1h' },
    })
    expect(refused.status).toBe(403)
    for (const body of [
      {},
      { default_expires_in: '0s' },
      { default_expires_in: 'forever' },
      { quota_bytes: 0 },
      { quota_bytes: 1.5 },
      { quota_bytes: '100' },
    ]) {
      const res = await call(path, { method: 'PATCH', key: owner.key, json: body })
      expect(res.status, JSON.stringify(body)).toBe(400)
    }
    await call(path, {
      method: 'PATCH',
      key: owner.key,
      json: { default_expires_in: '30m', quota_bytes: 1000 },
    })
    const { events } = await json(
      await call('/v1/audit?action=workspace.settings_changed', { key }),
    )
    expect(events[0].details).toEqual({ default_expires_in: '30m', quota_bytes: 1000 })
  })
})

describe('the storage quota', () => {
  it('refuses uploads past it with 413 quota_exceeded, saying what is used and allowed', async () => {
    const owner = await newAccount()
    const { key, path } = await team(owner)
    await upload(key, bytesOf('x'.repeat(60)))
    await call(path, { method: 'PATCH', key: owner.key, json: { quota_bytes: 100 } })
    const big = bytesOf('y'.repeat(50))
    const presign = await call('/v1/upload/presign', {
      method: 'POST',
      key,
      json: await metaOf(big),
    })
    expect(presign.status).toBe(413)
    const refusal = await json(presign)
    expect(refusal.error.code).toBe('quota_exceeded')
    expect(refusal.error.message).toContain('60 of 100 bytes')
    // The same with an Idempotency-Key (another path of presign), and by multipart.
    const keyed = await call('/v1/upload/presign', {
      method: 'POST',
      key,
      json: await metaOf(big),
      headers: { 'Idempotency-Key': crypto.randomUUID() },
    })
    expect(keyed.status).toBe(413)
    const form = new FormData()
    form.append('file', new File([big], 'big.txt', { type: 'text/plain' }))
    const multipart = await call('/v1/canvases', { method: 'POST', key, body: form })
    expect(multipart.status).toBe(413)
    expect((await json(multipart)).error.code).toBe('quota_exceeded')
    // What fits passes; content it holds already adds nothing.
    await upload(key, bytesOf('z'.repeat(40)))
    await upload(key, bytesOf('x'.repeat(60)))
    const usage = await json(await call('/v1/usage', { key }))
    expect(usage.limits.quota_bytes).toBe(100)
    expect(usage.bytes.stored).toBe(100)
    // Raised, it passes.
    await call(path, { method: 'PATCH', key: owner.key, json: { quota_bytes: 1000 } })
    await upload(key, big)
  })

  it('counts uploads under way: of twenty presigns at once past it, only what fits is taken', async () => {
    const owner = await newAccount()
    const { key, path } = await team(owner)
    await call(path, { method: 'PATCH', key: owner.key, json: { quota_bytes: 50_000 } })
    const contents = Array.from({ length: 20 }, (_, i) => bytesOf(`${i} `.padEnd(20_000, 'x')))
    const presign = async (content: Uint8Array) =>
      call('/v1/upload/presign', { method: 'POST', key, json: await metaOf(content) })
    const answers = await Promise.all(contents.map(presign))
    const taken = answers.flatMap((res, i) => (res.status === 200 ? [i] : []))
    expect(taken).toHaveLength(2)
    for (const res of answers.filter((r) => r.status !== 200)) {
      expect(res.status).toBe(413)
      expect((await json(res)).error.code).toBe('quota_exceeded')
    }
    for (const i of taken) await upload(key, contents[i])
    expect((await json(await call('/v1/usage', { key }))).bytes.stored).toBe(40_000)
    // One after another: presigned and not yet finalized counts as stored does.
    const [a, b, c] = ['a', 'b', 'c'].map((x) => bytesOf(x.repeat(10_000)))
    expect((await presign(a)).status).toBe(200)
    const refused = await presign(b)
    expect(refused.status).toBe(413)
    expect((await json(refused)).error.message).toContain(
      '50000 of 50000 bytes, 9.8 KB of it in uploads under way',
    )
    const form = new FormData()
    form.append('file', new File([c], 'c.txt', { type: 'text/plain' }))
    expect((await call('/v1/canvases', { method: 'POST', key, body: form })).status).toBe(413)
    // Its URL expired, an upload no longer holds room: another takes it, and the first can no
    // longer finish past the quota (its row stays pending for the sweep).
    const { presign: aUrl } = await presignAndPut(key, a)
    expect(aUrl.file_id).toBeTruthy()
    await env.DB.prepare('UPDATE files SET touched_at = touched_at - ? WHERE file_id = ?')
      .bind((Number(env.UPLOAD_URL_TTL ?? 900) + 1) * 1000, aUrl.file_id)
      .run()
    expect((await presign(b)).status).toBe(200)
    const late = await call('/v1/upload/finalize', { method: 'POST', key, json: await metaOf(a) })
    expect(late.status).toBe(413)
    expect((await json(late)).error.code).toBe('quota_exceeded')
    await upload(key, b)
    expect((await json(await call('/v1/usage', { key }))).bytes.stored).toBe(50_000)
  })

  it('is WORKSPACE_QUOTA_BYTES for a workspace without its own, unlimited when unset', async () => {
    const owner = await newAccount()
    await upload(owner.key, bytesOf('a'.repeat(30)))
    const meta = await metaOf(bytesOf('b'.repeat(30)))
    const limited = { WORKSPACE_QUOTA_BYTES: '40' }
    const res = await call('/v1/upload/presign', {
      method: 'POST',
      key: owner.key,
      json: meta,
      env: limited,
    })
    expect(res.status).toBe(413)
    const usage = await json(await call('/v1/usage', { key: owner.key, env: limited }))
    expect(usage.limits.quota_bytes).toBe(40)
    expect(
      (await call('/v1/upload/presign', { method: 'POST', key: owner.key, json: meta })).status,
    ).toBe(200)
  })
})

describe('deleting a workspace', () => {
  it('ends everything in it at once, and the sweep removes what is left', async () => {
    const owner = await newAccount()
    const { workspaceId, key, path } = await team(owner, 'Doomed')
    const editor = await member(owner, workspaceId, 'editor')
    const admin = await member(owner, workspaceId, 'admin')
    const canvas = await newCanvas(key, 'doomed words', { permanent: true })
    await call(`/auth/switch`, {
      method: 'POST',
      cookie: editor.person.cookie,
      json: { workspace_id: workspaceId },
    })
    expect((await call(path, { method: 'DELETE', key: admin.key })).status).toBe(403)
    const res = await call(path, { method: 'DELETE', key: owner.key })
    expect(res.status).toBe(200)
    expect(await json(res)).toEqual({ workspace_id: workspaceId, deleted: true, canvases: 1 })
    // Its keys stop, its canvases are gone, it is no one's any more.
    for (const k of [key, editor.key, admin.key]) {
      expect((await call('/v1/me', { key: k })).status).toBe(401)
    }
    expect((await call(`/v1/canvases/${canvas.canvas_id}`, { key: owner.key })).status).toBe(404)
    const { workspaces } = await json(await call('/v1/workspaces', { key: owner.key }))
    expect(workspaces.map((w: { workspace_id: string }) => w.workspace_id)).not.toContain(
      workspaceId,
    )
    // The editor's session goes on in their own workspace.
    const session = await env.DB.prepare('SELECT workspace_id FROM sessions WHERE user_id = ?')
      .bind(editor.person.userId)
      .first()
    expect(session).toEqual({ workspace_id: editor.person.workspaceId })
    expect((await call(path, { method: 'DELETE', key: owner.key })).status).toBe(404)
    // The sweep removes its canvases, files and at last its row.
    await sweepUntilDone(Date.now() + 48 * HOUR)
    const left = await env.DB.prepare(
      `SELECT (SELECT count(*) FROM workspaces WHERE workspace_id = ?1) AS w,
              (SELECT count(*) FROM files WHERE workspace_id = ?1) AS f,
              (SELECT count(*) FROM audit_events WHERE workspace_id = ?1) AS a`,
    )
      .bind(workspaceId)
      .first()
    expect(left).toEqual({ w: 0, f: 0, a: 0 })
  })

  it('never a personal workspace', async () => {
    const owner = await newAccount()
    const res = await call(`/v1/workspaces/${owner.workspaceId}`, {
      method: 'DELETE',
      key: owner.key,
    })
    expect(await json(res)).toEqual(
      errorOf('conflict', 'a personal workspace cannot be deleted; it is yours alone'),
    )
  })
})

describe('on the Members page', () => {
  it('an admin sets the default life and the quota; an owner deletes the workspace', async () => {
    const owner = await newAccount()
    const { workspaceId, key } = await team(owner, 'Paged')
    await call('/auth/switch', {
      method: 'POST',
      cookie: owner.cookie,
      json: { workspace_id: workspaceId },
    })
    const before = await (await browse('/settings/members', { cookie: owner.cookie })).text()
    expect(before).toContain('Settings of this workspace')
    expect(before).toContain('Delete this workspace')
    const saved = await call('/settings/members/settings', {
      ...formPost({
        name: 'Paged team',
        default_expires_in: 'keep',
        quota_mb: '5',
        _csrf: await csrfOf(owner.cookie),
      }),
      cookie: owner.cookie,
    })
    expect(saved.headers.get('Location')).toBe('/settings/members#settings')
    const after = await (
      await browse('/settings/members', { cookie: withFlash(owner, saved) })
    ).text()
    expect(after).toContain('Saved: new canvases here are kept until deleted.')
    expect(after).toContain('value="5"')
    expect(lifeOf(await newCanvas(key))).toBeNull()
    const usage = await json(await call('/v1/usage', { key }))
    expect(usage.limits.quota_bytes).toBe(5 * 1024 * 1024)
    // A quota that is not a number is refused in words, and nothing changes.
    const bad = await call('/settings/members/settings', {
      ...formPost({
        name: 'Paged team',
        default_expires_in: '7d',
        quota_mb: '1.5',
        _csrf: await csrfOf(owner.cookie),
      }),
      cookie: owner.cookie,
    })
    const refused = await (
      await browse('/settings/members', { cookie: withFlash(owner, bad) })
    ).text()
    expect(refused).toContain('The storage quota must be a whole number of MB')
    expect(lifeOf(await newCanvas(key))).toBeNull()
    // Deleting asks for the name first.
    const unsure = await call('/settings/members/delete', {
      ...formPost({ confirm: 'Paged', _csrf: await csrfOf(owner.cookie) }),
      cookie: owner.cookie,
    })
    const asked = await (
      await browse('/settings/members', { cookie: withFlash(owner, unsure) })
    ).text()
    expect(asked).toContain('to delete it')
    const deleted = await call('/settings/members/delete', {
      ...formPost({ confirm: 'Paged team', _csrf: await csrfOf(owner.cookie) }),
      cookie: owner.cookie,
    })
    const home = await (
      await browse('/settings/members', { cookie: withFlash(owner, deleted) })
    ).text()
    expect(home).toContain('“Paged team” is deleted, with its 2 canvases')
    expect((await call('/v1/me', { key })).status).toBe(401)
  })
})
