import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../src/app'
import { READ } from '../src/http/actor/need'
import { stated, statementOf } from '../src/http/actor/statement'
import { key } from '../src/http/actor/steps'
import { routeName, ROUTES } from './support/routes'

// The route table the security tests walk is read off the app's routes (test/support/routes.ts):
// each route's own first step states its access (src/http/actor/steps.ts), exactly once, and a
// route that takes a member's credential states what it needs of it.

/** What is wrong with the access steps of each route `app` registers; empty when nothing. */
function accessProblems(app: Hono<any>): string[] {
  const steps = new Map<string, unknown[]>()
  for (const route of app.routes.filter((r) => r.method !== 'ALL')) {
    const name = routeName(route)
    steps.set(name, [...(steps.get(name) ?? []), route.handler])
  }
  const problems: string[] = []
  for (const [name, handlers] of steps) {
    const kinds = handlers.map(statementOf).filter((s) => s !== undefined)
    if (kinds.length !== 1) {
      const said = kinds.map((s) => s.kind).join(', ') || 'none'
      problems.push(`${name}: ${kinds.length} access steps (${said})`)
    } else if (statementOf(handlers[0]) === undefined) {
      problems.push(`${name}: its access step is not its first`)
    } else if (['key', 'session', 'page'].includes(kinds[0].kind) && !kinds[0].need) {
      problems.push(`${name}: takes a member's credential and states no need`)
    }
  }
  return problems
}

describe('the route table', () => {
  it('every route checks its own access first, once, and states what it needs', () => {
    expect(accessProblems(buildApp())).toEqual([])
  })

  it('is every route the app registers, each as its access step states it', () => {
    const app = buildApp()
    const registered = new Set(app.routes.filter((r) => r.method !== 'ALL').map(routeName))
    expect(ROUTES.map(routeName).sort()).toEqual([...registered].sort())
    // `use` and `all` both register ALL: only middleware on a whole prefix may do that.
    const all = app.routes.filter((r) => r.method === 'ALL').map((r) => r.path)
    expect(all.filter((path) => !path.endsWith('*'))).toEqual([])
    const audit = ROUTES.find((r) => routeName(r) === 'GET /v1/audit')
    expect(audit).toMatchObject({ auth: 'key', role: 'admin', scope: 'write', json: true })
  })

  it('a route written without an access step, with it late or twice, or without a need, is found', () => {
    const app = new Hono()
    const handler = () => new Response('ok')
    const needless = stated({ kind: 'key' }, (_c: unknown, next: () => Promise<void>) => next())
    app.get('/v1/forgotten', handler)
    app.get('/v1/late', (_c, next) => next(), key(READ), handler)
    app.get('/v1/twice', key(READ), key(READ), handler)
    app.get('/v1/fine', key(READ), handler)
    app.get('/v1/needless', needless, handler)
    expect(accessProblems(app)).toEqual([
      'GET /v1/forgotten: 0 access steps (none)',
      'GET /v1/late: its access step is not its first',
      'GET /v1/twice: 2 access steps (key, key)',
      "GET /v1/needless: takes a member's credential and states no need",
    ])
  })
})
