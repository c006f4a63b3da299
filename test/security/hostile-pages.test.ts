import { refusesHostileRequests } from '../support/hostile-check'
import { ROUTES } from '../support/routes'

// Generated hostile requests to the routes that answer pages, redirects and content: the web app,
// the frames and the share links (the JSON routes: hostile-input.test.ts).

refusesHostileRequests(
  'the page and content routes',
  ROUTES.filter((route) => !route.json),
)
