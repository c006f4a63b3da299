import { env } from 'cloudflare:test'
import { expect, it } from 'vitest'
import { sweepAudit } from '../src/domain/audit/log'
import { sweep } from '../src/domain/sweep'
import { call, errorOf, json, newAccount, newCanvas, type Account } from './support/api'
import { realServices } from './support/state'
import { joinedAs, keyIn, newTeam } from './support/teams'
import { connect, tokenRequest, tool } from './support/oauth'
import { createWebhook, eventually, hook, received } from './support/webhooks'

// The audit log (docs/teams.md#the-audit-log): every change in a workspace, with who made it,
// readable by its admins newest first, paged by cursor, never a secret in it, written in the
// batch of its change.

type Event = {
  action: string
  actor: { kind: string; name: string; user_id?: string; person?: Record<string, string> }
} & {
  target: { type: string; id: string }
  details: Record<string, unknown>
}

const log = async (key: string, query = '') =>
  (await json(await call(`/v1/audit?limit=100${query}`, { key }))).events as Event[]

it('records the changes of a team, with who made each, newest first, and no secret', async () => {
  const owner = await newAccount()
  const workspaceId = await newTeam(owner, 'Audited')
  const base = `/v1/workspaces/${workspaceId}`
  await call(base, { method: 'PATCH', key: owner.key, json: { name: 'Audited team' } })
  const { person } = await joinedAs(owner, workspaceId, 'editor')
  const key = await keyIn(owner, workspaceId, 'ci')
  const canvas = await newCanvas(key, 'audited', { title: 'Plan' })
  const path = `/v1/canvases/${canvas.canvas_id}`
  await call(path, { method: 'PATCH', key, json: { visibility: 'public', title: 'Plan 2' } })
  const share = await json(
    await call(`${path}/shares`, { method: 'POST', key, json: { password: 'open sesame' } }),
  )
  await call(`${path}/shares/${share.token}`, { method: 'DELETE', key })
  const webhook = await json(
    await call('/v1/webhooks', {
      method: 'POST',
      key,
      json: { url: `${hook().url}&secret-query=s3cr3t`, events: ['canvas.deleted'] },
    }),
  )
  await call(`${base}/members/${person.userId}`, {
    method: 'PATCH',
    key: owner.key,
    json: { role: 'viewer' },
  })
  await call(path, { method: 'DELETE', key })
  await call(`${base}/members/${person.userId}`, { method: 'DELETE', key: owner.key })

  const res = await call('/v1/audit?limit=100', { key })
  expect(res.status).toBe(200)
  const text = await res.clone().text()
  const { events, next_cursor } = await json(res)
  expect(next_cursor).toBeNull()
  expect(events.map((e: Event) => [e.action, e.actor.kind, e.actor.name])).toEqual([
    ['member.removed', 'key', 'test key'],
    ['canvas.deleted', 'key', 'ci'],
    ['member.role_changed', 'key', 'test key'],
    ['webhook.created', 'key', 'ci'],
    ['share.revoked', 'key', 'ci'],
    ['share.created', 'key', 'ci'],
    ['canvas.updated', 'key', 'ci'],
    ['canvas.visibility_changed', 'key', 'ci'],
    ['canvas.created', 'key', 'ci'],
    ['key.created', 'member', owner.email],
    ['member.joined', 'member', person.email],
    ['member.invited', 'key', 'test key'],
    ['workspace.renamed', 'key', 'test key'],
    ['workspace.created', 'key', 'test key'],
  ])
  expect(events[0].details).toEqual({ email: person.email, role: 'viewer', left: false })
  expect(events[1].details).toEqual({ title: 'Plan 2' })
  expect(events[2]).toMatchObject({
    target: { type: 'member', id: person.userId },
    details: { email: person.email, from: 'editor', to: 'viewer' },
    actor: { user_id: owner.userId },
  })
  expect(events[3].details).toEqual({
    host: new URL(hook().url).host,
    events: ['canvas.deleted'],
  })
  expect(events[5].details).toMatchObject({ password: true, version: null })
  expect(events[6].details).toEqual({ fields: ['title'] })
  expect(events[8]).toMatchObject({
    target: { type: 'canvas', id: canvas.canvas_id },
    details: { title: 'Plan', version: 1, items: 1 },
  })
  expect(events[10].details).toMatchObject({ email: person.email, role: 'editor' })
  expect(events[12].details).toEqual({ name: 'Audited team' })
  expect(events[13]).toMatchObject({
    target: { type: 'workspace', id: workspaceId },
    details: { name: 'Audited' },
  })
  // A key's event names the person behind it.
  expect(events[1].actor).toEqual({
    kind: 'key',
    user_id: owner.userId,
    name: 'ci',
    person: { user_id: owner.userId, name: owner.email.split('@')[0], email: owner.email },
  })
  // No secret: the link's token and password, the key, the webhook's secret and query.
  for (const secret of [share.token, 'open sesame', key, webhook.secret, 's3cr3t']) {
    expect(text.includes(secret), secret).toBe(false)
  }
})

it('finds everything a person did, by any credential, by their email; never a key named like it', async () => {
  const owner = await newAccount()
  const workspaceId = await newTeam(owner, 'People')
  const ownerKey = await keyIn(owner, workspaceId, 'ci')
  const { person } = await joinedAs(owner, workspaceId, 'editor')
  // A member names a key after the owner's email, hoping to pass for them.
  const posing = await keyIn(person, workspaceId, owner.email)
  await newCanvas(posing, 'posing', { title: 'By the poser' })
  await newCanvas(ownerKey, 'owned', { title: 'By the owner' })
  await call('/auth/switch', {
    method: 'POST',
    cookie: owner.cookie,
    json: { workspace_id: workspaceId },
  })
  const { tokens } = await connect(owner, 'canvas:read canvas:write')
  const published = await tool(tokens.access_token, 'publish', {
    content: 'by the owner’s app',
    filename: 'app.txt',
  })
  expect(published.isError).toBeUndefined()
  for (const query of [owner.email, owner.email.toUpperCase(), owner.userId]) {
    const found = await log(ownerKey, `&actor=${encodeURIComponent(query)}`)
    expect(found.length, query).toBeGreaterThan(0)
    for (const event of found) {
      expect(event.actor.user_id, `${query}: ${event.action}`).toBe(owner.userId)
    }
    const kinds = new Set(found.map((e) => e.actor.kind))
    expect([...kinds].sort(), query).toEqual(['agent', 'key', 'member'])
    expect(found.map((e) => e.details.title)).not.toContain('By the poser')
  }
  // The poser's key is found by its name, and names its true person.
  const named = await log(ownerKey, `&actor=${encodeURIComponent(person.email)}`)
  const posed = named.find((e) => e.action === 'canvas.created')!
  expect(posed.actor).toMatchObject({
    kind: 'key',
    name: owner.email,
    person: { user_id: person.userId, email: person.email },
  })
})

it('records every grant that ends as oauth.disconnected: replaced, reused, revoked by the app', async () => {
  const owner = await newAccount()
  const first = await connect(owner)
  // A new approval of the same app replaces the connection.
  await connect(owner, undefined, first.client)
  // A refresh token used twice ends the grant it belongs to.
  const second = await connect(owner)
  const refresh = { grant_type: 'refresh_token', client_id: second.client.client_id }
  await tokenRequest({ ...refresh, refresh_token: second.tokens.refresh_token })
  await tokenRequest({ ...refresh, refresh_token: second.tokens.refresh_token })
  // An app may end its own grant (RFC 7009).
  const third = await connect(owner)
  await tokenRequest({ token: third.tokens.access_token, client_id: third.client.client_id })
  const ended = await log(owner.key, '&action=oauth.disconnected')
  const reasons = ended.map((e) => e.details.reason).sort()
  expect(reasons).toEqual(['replaced', 'revoked', 'secret_reused'])
  for (const event of ended) {
    expect(event.actor.person).toMatchObject({ user_id: owner.userId, email: owner.email })
    expect(event.target.type).toBe('app')
  }
})

it('records nothing for a change that did not happen', async () => {
  const owner = await newAccount()
  const canvas = await newCanvas(owner.key)
  const path = `/v1/canvases/${canvas.canvas_id}`
  const before = await log(owner.key)
  expect((await call(`${path}/permanent`, { method: 'POST', key: owner.key })).status).toBe(200)
  // Already permanent: nothing changes, nothing is recorded.
  expect((await call(`${path}/permanent`, { method: 'POST', key: owner.key })).status).toBe(200)
  expect(
    (await call(`${path}/shares/nosuchtoken`, { method: 'DELETE', key: owner.key })).status,
  ).toBe(404)
  expect(
    (await call('/v1/canvases/nosuchcanvas', { method: 'DELETE', key: owner.key })).status,
  ).toBe(404)
  const after = await log(owner.key)
  expect(after.length - before.length).toBe(1)
  expect(after[0].action).toBe('canvas.made_permanent')
})

it('records sign-ins and failed ones in each workspace of the person', async () => {
  const owner = await newAccount()
  const workspaceId = await newTeam(owner, 'Signed')
  const login = (password: string) =>
    call('/auth/login', { method: 'POST', json: { email: owner.email, password } })
  expect((await login('wrong password!')).status).toBe(401)
  expect((await login(owner.password)).status).toBe(200)
  const teamKey = await keyIn(owner, workspaceId, 'reader')
  for (const key of [owner.key, teamKey]) {
    const events = await log(key, '&target=' + owner.userId)
    expect(events.map((e) => [e.action, e.actor.kind, e.actor.name])).toEqual([
      ['auth.login', 'member', owner.email],
      ['auth.login_failed', 'visitor', owner.email],
    ])
    expect(JSON.stringify(events)).not.toContain('wrong password!')
  }
})

it('pages by cursor at any depth, filters, and is its admins’ alone', async () => {
  const owner = await newAccount()
  for (const title of ['a', 'b', 'c', 'd', 'e']) await newCanvas(owner.key, title, { title })
  const seen: string[] = []
  let cursor: string | null = null
  do {
    const query: string = cursor ? `&cursor=${cursor}` : ''
    const page: any = await json(
      await call(`/v1/audit?limit=2&action=canvas.created${query}`, { key: owner.key }),
    )
    expect(page.events.length).toBeLessThanOrEqual(2)
    seen.push(...page.events.map((e: Event) => e.details.title))
    cursor = page.next_cursor
  } while (cursor)
  expect(seen).toEqual(['e', 'd', 'c', 'b', 'a'])
  const byActor = await log(owner.key, `&action=canvas.created&actor=${owner.userId}`)
  expect(byActor).toHaveLength(5)
  expect(await log(owner.key, '&actor=test%20key')).toHaveLength(5)
  expect(await log(owner.key, '&action=member.joined')).toEqual([])
  const forged = await call('/v1/audit?cursor=forged', { key: owner.key })
  expect(await json(forged)).toEqual(
    errorOf('invalid_request', 'cursor: is not a cursor this API gave'),
  )
  const bad = await call('/v1/audit?action=canvas.exploded', { key: owner.key })
  expect(bad.status).toBe(400)

  const workspaceId = await newTeam(owner, 'T')
  const { person } = await joinedAs(owner, workspaceId, 'editor')
  const refused = await call('/v1/audit', { key: await keyIn(person, workspaceId, 'e') })
  expect(refused.status).toBe(403)
})

it('tells webhooks of each event as audit.event', async () => {
  const owner = await newAccount()
  const place = hook()
  await createWebhook(owner.key, { url: place.url, events: ['audit.event'] })
  const canvas = await newCanvas(owner.key, 'told', { title: 'Told' })
  const bodies = await eventually(
    'the canvas.created event',
    async () => (await received(place.name)).map((r) => JSON.parse(r.body)),
    (b) => b.some((body) => body.data.action === 'canvas.created'),
    // The real queue on a loaded machine: a fresh-clone run of the whole suite took over 15 s.
    30_000,
  )
  const told = bodies.find((body) => body.data.action === 'canvas.created')
  expect(told.type).toBe('audit.event')
  const [recorded] = await log(owner.key, `&target=${canvas.canvas_id}`)
  expect(told.data).toEqual(recorded)
}, 60_000)

it('records expiry by the sweep as the system, and keeps events AUDIT_RETENTION_DAYS', async () => {
  const owner = await newAccount()
  const expiring = await newCanvas(owner.key, 'brief', { title: 'Brief' })
  const deleted = await newCanvas(owner.key, 'gone', { title: 'Gone' })
  await call(`/v1/canvases/${deleted.canvas_id}`, { method: 'DELETE', key: owner.key })
  const day = 86400_000
  await sweep(realServices(), { now: Date.now() + 2 * day })
  const expired = await log(owner.key, '&action=canvas.expired')
  expect(expired).toEqual([
    expect.objectContaining({
      actor: { kind: 'system', name: 'Canvas' },
      target: { type: 'canvas', id: expiring.canvas_id },
      details: { title: 'Brief' },
    }),
  ])
  await env.DB.prepare(
    `INSERT INTO audit_events (event_id, workspace_id, at, actor_kind, actor_name, action,
       target_type, target_id, details) VALUES (?, ?, ?, 'system', 'x', 'canvas.deleted',
       'canvas', 'c1', '{}')`,
  )
    .bind(crypto.randomUUID().replace(/-/g, ''), owner.workspaceId, Date.now() - 366 * day)
    .run()
  expect(await log(owner.key, '&target=c1')).toHaveLength(1)
  await sweepAudit(realServices(), Date.now(), 100)
  expect(await log(owner.key, '&target=c1')).toEqual([])
  expect((await log(owner.key)).length).toBeGreaterThan(0)
})
