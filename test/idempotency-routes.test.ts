import { beforeAll, expect, it } from 'vitest'
import { buildApp } from '../src/app'
import { call } from './support/api'
import { answerOf, expectReplay, freshKey, keyRows } from './support/idempotency'
import { routeName, ROUTES } from './support/routes'
import { buildWorld, succeedingRequests, type World } from './support/world'

// Every write under /v1 that the app registers, read from the app itself rather than from the
// route table, honours Idempotency-Key: a route added later cannot miss it unnoticed.

let world: World
beforeAll(async () => {
  world = await buildWorld()
})

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
const order = (r: { method: string; path: string }) =>
  r.method === 'DELETE' ? 1000 - r.path.length : 0

it('every POST, PUT, PATCH and DELETE under /v1 replays its answer to a repeat', async () => {
  const registered = buildApp().routes.filter(
    (r) => WRITES.has(r.method) && r.path.startsWith('/v1/'),
  )
  const writes = [...new Map(registered.map((r) => [`${r.method} ${r.path}`, r])).values()]
    .map((r) => ({ method: r.method as 'POST', path: r.path, auth: 'key' as const, json: true }))
    // Deletes last, the narrowest first: the other routes act on what they would remove.
    .sort((a, b) => order(a) - order(b))
  // Not one fewer than the route table's writes under /v1.
  const table = ROUTES.filter(
    (r) => r.auth === 'key' && r.method !== 'GET' && r.path.startsWith('/v1/'),
  ).map(routeName)
  expect(writes.map(routeName).sort()).toEqual(table.sort())
  const kept: string[] = []
  const requestOf = await succeedingRequests(world)
  for (const route of writes) {
    const { path, init } = requestOf(route)
    const key = freshKey()
    const send = () =>
      call(path, { ...init, key: world.owner.key, headers: { 'Idempotency-Key': key } })
    const first = await send()
    const where = `${route.method} ${route.path}`
    expect(first.status, where).toBeLessThan(500)
    expect(first.headers.get('Idempotent-Replayed'), where).toBeNull()
    const answer = await answerOf(first)
    const repeat = await send()
    expect(repeat.headers.get('Idempotent-Replayed'), where).toBe('true')
    await expectReplay(repeat, answer)
    kept.push(key)
  }
  const stored = (await keyRows(world.owner.workspaceId)).map((r) => r.key)
  expect(stored.sort()).toEqual(kept.sort())
})
