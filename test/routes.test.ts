import { expect, it } from 'vitest'
import { buildApp } from '../src/app'
import { routeName, ROUTES } from './support/routes'

// The route table is the list the security tests walk: it must be exactly the app's routes.
it('the route table lists exactly the routes the app registers', () => {
  const app = buildApp()
  const registered = new Set(app.routes.filter((r) => r.method !== 'ALL').map((r) => routeName(r)))
  expect([...registered].sort()).toEqual(ROUTES.map(routeName).sort())
  // `use` and `all` both register ALL: only middleware on a whole prefix may do that.
  const all = app.routes.filter((r) => r.method === 'ALL').map((r) => r.path)
  expect(all.filter((path) => !path.endsWith('*'))).toEqual([])
})
