import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../src/app'
import { keyAccess } from '../src/http/access'
import { accessOf } from '../src/http/access-kind'
import { routeName, ROUTES } from './support/routes'

// The route table is the list the security tests walk: it must be exactly the app's routes, and
// each route's own first step must grant the access the table says (src/http/access.ts).

/** What is wrong with the access steps of each route `app` registers; empty when nothing. */
function accessProblems(app: Hono<any>, expected: Map<string, string>): string[] {
  const steps = new Map<string, unknown[]>()
  for (const route of app.routes.filter((r) => r.method !== 'ALL')) {
    const name = routeName(route)
    steps.set(name, [...(steps.get(name) ?? []), route.handler])
  }
  const problems: string[] = []
  for (const [name, handlers] of steps) {
    const kinds = handlers.map(accessOf).filter((kind) => kind !== undefined)
    if (kinds.length !== 1) {
      problems.push(`${name}: ${kinds.length} access steps (${kinds.join(', ') || 'none'})`)
    } else if (accessOf(handlers[0]) === undefined) {
      problems.push(`${name}: its access step is not its first`)
    } else if (expected.has(name) && kinds[0] !== expected.get(name)) {
      problems.push(`${name}: grants ${kinds[0]}, the table says ${expected.get(name)}`)
    }
  }
  return problems
}

const TABLE = new Map(ROUTES.map((r) => [routeName(r), r.auth as string]))

describe('the route table', () => {
  it('lists exactly the routes the app registers', () => {
    const app = buildApp()
    const registered = new Set(
      app.routes.filter((r) => r.method !== 'ALL').map((r) => routeName(r)),
    )
    expect([...registered].sort()).toEqual(ROUTES.map(routeName).sort())
    // `use` and `all` both register ALL: only middleware on a whole prefix may do that.
    const all = app.routes.filter((r) => r.method === 'ALL').map((r) => r.path)
    expect(all.filter((path) => !path.endsWith('*'))).toEqual([])
  })

  it('every route checks its own access first, the kind the security tests expect', () => {
    expect(accessProblems(buildApp(), TABLE)).toEqual([])
  })

  it('a route written without an access step, or with it late or twice, is found', () => {
    const app = new Hono()
    const handler = () => new Response('ok')
    app.get('/v1/forgotten', handler)
    app.get('/v1/late', (_c, next) => next(), keyAccess, handler)
    app.get('/v1/twice', keyAccess, keyAccess, handler)
    app.get('/v1/wrong', keyAccess, handler)
    expect(accessProblems(app, new Map([['GET /v1/wrong', 'none']]))).toEqual([
      'GET /v1/forgotten: 0 access steps (none)',
      'GET /v1/late: its access step is not its first',
      'GET /v1/twice: 2 access steps (key, key)',
      'GET /v1/wrong: grants key, the table says none',
    ])
  })
})
