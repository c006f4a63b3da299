import { beforeAll, describe, expect, it } from 'vitest'
import { call, json } from '../support/api'
import { KEY_KINDS, memberOf, type Credentials, type KeyKind } from '../support/credentials'
import { mcp } from '../support/oauth'
import { routeName, ROUTES, type Route } from '../support/routes'
import { sampled } from '../support/runs'
import { snapshot } from '../support/state'
import { buildWorld, requestFor, type World } from '../support/world'

// The role and credential matrix (docs/teams.md): every route that takes a member's credential,
// as its own access step states what it needs (test/support/routes.ts reads it off the app), for
// a member of each role holding each kind of credential: their session, a key they made, a key of
// the CLI's browser sign-in (exchanged), one of its device sign-in, and an app they connected. A
// role below the route's, or a viewer's key or app asked to write, is refused with 403 naming the
// role and the workspace, and changes nothing; one at or above it reads. A member removed a
// moment before is refused everywhere (401); a credential approved for one workspace is refused
// beyond it.

const ROLE_ORDER = ['viewer', 'editor', 'admin'] as const
type Role = (typeof ROLE_ORDER)[number]
const RANK = ['viewer', 'editor', 'admin', 'owner'] as const
const below = (held: Role, needed: (typeof RANK)[number]) =>
  RANK.indexOf(held) < RANK.indexOf(needed)
const ROLE_REFUSAL =
  /needs the (viewer|editor|admin|owner) role; yours in “.+” is (viewer|editor|admin)/

let world: World
const members = {} as Record<Role | 'removed', Credentials>

beforeAll(async () => {
  world = await buildWorld()
  const workspace = world.owner.workspaceId
  for (const role of ROLE_ORDER) members[role] = await memberOf(world.owner, workspace, role)
  members.removed = await memberOf(world.owner, workspace, 'editor')
  const removed = await call(
    `/v1/workspaces/${workspace}/members/${members.removed.person.userId}`,
    {
      method: 'DELETE',
      key: world.owner.key,
    },
  )
  expect(removed.status).toBe(200)
}, 120_000)

const keyRoutes = ROUTES.filter((r) => r.auth === 'key' && !r.token)
const sessionRoutes = ROUTES.filter(
  (r) => (r.auth === 'session' || r.auth === 'page') && r.role !== undefined,
)

/**
 * Why a credential of `kind` for `role` is refused `route`, if it is: a credential approved for
 * one workspace makes no other (`bound`), or the role (a viewer's keys and apps read only,
 * whatever their scopes; their session is them).
 */
function refusal(route: Route, role: Role, kind: KeyKind | 'session') {
  if ((kind === 'exchanged' || kind === 'device') && route.workspace === 'new') return BOUND
  const narrowed = kind !== 'session' && role === 'viewer' && route.scope === 'write'
  return below(role, route.role!) || narrowed ? ROLE_REFUSAL : null
}

const BOUND = /approved for one workspace/

/** The route's request, sent with `credentials` of `kind` instead of the owner's. */
async function sendAs(route: Route, member: Credentials, kind: KeyKind | 'session') {
  const { path, init } = requestFor(route, world)
  if (kind !== 'session') return call(path, { ...init, key: member[kind] })
  // The world's requests carry the owner's CSRF token: the member's session sends its own.
  const own = (text: string) => text.replaceAll(world.csrf, member.csrf)
  const headers = Object.fromEntries(
    Object.entries((init.headers ?? {}) as Record<string, string>).map(([k, v]) => [k, own(v)]),
  )
  let body = init.body
  if (typeof body === 'string') body = own(body)
  if (body instanceof FormData) {
    const copy = new FormData()
    for (const [k, v] of body.entries()) copy.append(k, typeof v === 'string' ? own(v) : v)
    body = copy
  }
  return call(path, { ...init, headers, body, cookie: member.cookie })
}

async function expectRefused(res: Response, why: RegExp, where: string) {
  expect(res.status, where).toBe(403)
  expect(await res.text(), where).toMatch(why)
}

describe('every route that takes a member’s credential, for each role and kind of credential', () => {
  it('states the role and the scope it needs', () => {
    expect([...keyRoutes, ...sessionRoutes].filter((r) => !r.role || !r.scope)).toEqual([])
    expect(keyRoutes.length).toBeGreaterThan(40)
    expect(sessionRoutes.length).toBeGreaterThan(30)
  })

  const cases = [
    ...keyRoutes.flatMap((route) =>
      ROLE_ORDER.flatMap((role) => KEY_KINDS.map((kind) => ({ route, role, kind }))),
    ),
    ...sessionRoutes.flatMap((route) =>
      ROLE_ORDER.map((role) => ({ route, role, kind: 'session' as const })),
    ),
  ]

  it('refuses a role below its own with 403 naming it, changing nothing; reads at or above', async () => {
    const before = await snapshot(world.owner.workspaceId)
    for (const { route, role, kind } of sampled(cases)) {
      const where = `${routeName(route)} as ${role} by ${kind}`
      const why = refusal(route, role, kind)
      if (why) {
        await expectRefused(await sendAs(route, members[role], kind), why, where)
      } else if (route.method === 'GET') {
        const res = await sendAs(route, members[role], kind)
        const text = await res.text()
        expect(text, where).not.toMatch(ROLE_REFUSAL)
        expect(res.status, `${where}: ${text.slice(0, 200)}`).toBeLessThan(400)
      }
    }
    expect(await snapshot(world.owner.workspaceId)).toEqual(before)
  }, 300_000)

  it('refuses every key of a member removed a moment before with 401 saying so', async () => {
    const before = await snapshot(world.owner.workspaceId)
    for (const route of sampled(keyRoutes)) {
      for (const kind of KEY_KINDS) {
        const res = await sendAs(route, members.removed, kind)
        const where = `${routeName(route)} by ${kind}`
        expect(res.status, where).toBe(401)
        expect((await json(res)).error.message, where).toMatch(/no longer a member/)
      }
    }
    // Their app too, and their session reaches nothing of the workspace.
    expect((await mcp(members.removed.app, 'tools/list')).status).toBe(401)
    const page = await call(`/c/${world.canvasId}`, { cookie: members.removed.cookie })
    expect(page.status).toBe(404)
    expect(await snapshot(world.owner.workspaceId)).toEqual(before)
  })

  it('refuses an app’s token on every route but MCP', async () => {
    for (const route of sampled(keyRoutes)) {
      const { path, init } = requestFor(route, world)
      const res = await call(path, { ...init, key: members.editor.app })
      expect(res.status, routeName(route)).toBe(401)
    }
  })

  it('keeps a credential approved for one workspace there: never another, never a new one', async () => {
    const editor = members.editor
    const elsewhere = editor.person.workspaceId
    const beyond = keyRoutes.filter((r) => r.workspace === 'path' || r.workspace === 'new')
    expect(beyond.length).toBeGreaterThan(8)
    for (const route of beyond) {
      const { path, init } = requestFor(route, world)
      const there = path.replace(world.owner.workspaceId, elsewhere)
      for (const kind of ['exchanged', 'device'] as const) {
        const res = await call(there, { ...init, key: editor[kind] })
        const where = `${routeName(route)} by ${kind}`
        expect(res.status, where).toBe(403)
        expect((await json(res)).error.message, where).toMatch(/approved for one workspace/)
      }
    }
    // A key the person made themself reaches their other workspaces, as documented.
    const own = await call(`/v1/workspaces/${elsewhere}/members`, { key: editor.key })
    expect(own.status).toBe(200)
  })
})

describe('MCP, for each role and kind of credential', () => {
  type Tool = { name: string; annotations: { readOnlyHint: boolean } }
  const listed = async (token: string) =>
    (await json(await mcp(token, 'tools/list'))).result.tools as Tool[]

  it('lists the tools a credential may call, and refuses the others by role', async () => {
    const all = await listed(world.owner.key)
    const writes = all.filter((t) => !t.annotations.readOnlyHint).map((t) => t.name)
    expect(writes.length).toBeGreaterThan(5)
    for (const role of ROLE_ORDER) {
      for (const kind of [...KEY_KINDS, 'app'] as const) {
        const token = members[role][kind]
        const names = (await listed(token)).map((t) => t.name)
        const where = `${role} by ${kind}`
        if (role === 'viewer') {
          expect(
            names.filter((n) => writes.includes(n)),
            where,
          ).toEqual([])
          const res = await json(
            await mcp(token, 'tools/call', {
              name: 'delete_canvas',
              arguments: { canvas_id: world.canvasId },
            }),
          )
          expect(res.result?.isError, where).toBe(true)
          expect(res.result.content[0].text, where).toMatch(/^forbidden: .*role/)
        } else {
          expect(names.sort(), where).toEqual(all.map((t) => t.name).sort())
        }
      }
    }
  })
})
