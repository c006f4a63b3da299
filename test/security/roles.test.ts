import { beforeAll, describe, expect, it } from 'vitest'
import { call, json, newAccount } from '../support/api'
import { routeName, ROUTES, type Route } from '../support/routes'
import { snapshot } from '../support/state'
import { buildWorld, requestFor, type World } from '../support/world'

// The role column of the authorization matrix (docs/teams.md): every key route of the table, for
// a member of the owner's workspace holding each role, with a key that has every scope. A role
// below the route's refuses with 403 and changes nothing; a role at or above it reads; a key of a
// member removed a moment before is refused on every route with 401. A key route without a role
// rule in the table fails here.

// The owner's own key is the world's; the other roles get a member each.
const ROLE_ORDER = ['viewer', 'editor', 'admin'] as const
type Role = (typeof ROLE_ORDER)[number]
const RANK = ['viewer', 'editor', 'admin', 'owner'] as const
const below = (held: Role, needed: (typeof RANK)[number]) =>
  RANK.indexOf(held) < RANK.indexOf(needed)

let world: World
const keys = {} as Record<Role | 'removed', string>

beforeAll(async () => {
  world = await buildWorld()
  const workspace = world.owner.workspaceId
  for (const role of [...ROLE_ORDER, 'removed'] as const) {
    const person = await newAccount()
    // Joined as an editor, so that the key can have every scope; then given the role.
    const invite = await json(
      await call(`/v1/workspaces/${workspace}/invites`, {
        method: 'POST',
        key: world.owner.key,
        json: { role: 'editor' },
      }),
    )
    const join = await call(`/auth/join/${invite.url.split('/join/')[1]}`, {
      method: 'POST',
      cookie: person.cookie,
    })
    expect(join.status).toBe(200)
    const made = await call('/auth/keys', {
      method: 'POST',
      cookie: person.cookie,
      json: { name: `as ${role}`, workspace_id: workspace },
    })
    keys[role] = (await json(made)).key
    const member = `/v1/workspaces/${workspace}/members/${person.userId}`
    const change =
      role === 'removed'
        ? await call(member, { method: 'DELETE', key: world.owner.key })
        : await call(member, { method: 'PATCH', key: world.owner.key, json: { role } })
    expect(change.status).toBe(200)
  }
})

const keyRoutes = ROUTES.filter((r) => r.auth === 'key')

async function send(route: Route, key: string) {
  const { path, init } = requestFor(route, world)
  return call(path, { ...init, key })
}

describe('every key route, for each role', () => {
  it('names the least role it needs', () => {
    expect(keyRoutes.filter((r) => r.role === undefined).map(routeName)).toEqual([])
  })

  it('refuses a role below its own with 403, changing nothing; reads for one at or above', async () => {
    const before = await snapshot(world.owner.workspaceId)
    for (const route of keyRoutes) {
      for (const role of ROLE_ORDER) {
        const where = `${routeName(route)} as ${role}`
        if (below(role, route.role!)) {
          const res = await send(route, keys[role])
          expect(res.status, where).toBe(403)
          expect((await json(res)).error.code, where).toBe('forbidden')
        } else if (route.method === 'GET') {
          expect((await send(route, keys[role])).status, where).toBeLessThan(400)
        }
      }
    }
    expect(await snapshot(world.owner.workspaceId)).toEqual(before)
  })

  it('refuses the key of a member removed a moment before with 401', async () => {
    const before = await snapshot(world.owner.workspaceId)
    for (const route of keyRoutes) {
      const res = await send(route, keys.removed)
      expect(res.status, routeName(route)).toBe(401)
    }
    expect(await snapshot(world.owner.workspaceId)).toEqual(before)
  })
})
