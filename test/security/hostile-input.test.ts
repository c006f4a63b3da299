import { refusesHostileRequests } from '../support/hostile-check'
import { ROUTES } from '../support/routes'

// Generated hostile requests to the routes that answer JSON: the API, the web app's JSON routes
// and storage (the pages and content routes: hostile-pages.test.ts).

refusesHostileRequests(
  'the JSON routes',
  ROUTES.filter((route) => route.json),
)
