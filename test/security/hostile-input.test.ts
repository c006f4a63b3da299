import { env } from 'cloudflare:test'
import fc from 'fast-check'
import { beforeAll, expect, it } from 'vitest'
import { call, REQUEST_ID } from '../support/api'
import { hostileRequests, type Hostile } from '../support/hostile'
import { routeName } from '../support/routes'
import { snapshot } from '../support/state'
import { buildWorld, ownerCredentials, type World } from '../support/world'

// 10,000 generated hostile requests across every route of the table (README: API, errors: no input,
// however malformed, produces a 500 or an HTML error on an API route). Each one is refused with a
// 4xx and the error body, and leaves the owner's workspace and the user list exactly as they were.

const RUNS = Number(process.env.HOSTILE_RUNS ?? 10_000)
const CODES: Record<number, string[]> = {
  400: ['invalid_request', 'upload_incomplete', 'checksum_mismatch'],
  401: ['unauthorized', 'share_password_required'],
  403: ['forbidden', 'share_password_invalid', 'signup_closed'],
  404: [
    'not_found',
    'canvas_not_found',
    'version_not_found',
    'file_not_found',
    'share_not_found',
    'webhook_not_found',
  ],
  409: ['share_token_taken', 'conflict', 'webhook_limit'],
  410: ['share_expired', 'share_exhausted'],
  413: ['payload_too_large'],
}
// Rate limits would turn the flood into 429s and hide what validation says.
const UNLIMITED = {
  API_LIMITER: undefined,
  AUTH_LIMITER: undefined,
  PUBLIC_LIMITER: undefined,
  SHARE_PASSWORD_LIMITER: undefined,
  FRAME_LIMITER: undefined,
  SITE_LIMITER: undefined,
}

let world: World
beforeAll(async () => {
  world = await buildWorld()
})

/** The owner's credentials, unless the attack is on the credentials. */
const credentials = (h: Hostile) =>
  h.attack === 'junk Authorization' ? {} : ownerCredentials(h.route, world)

/** A cheap fingerprint of all state a request could touch, read in one round trip. */
async function fingerprint() {
  const ws = world.owner.workspaceId
  const results = await env.DB.batch([
    env.DB.prepare(
      `SELECT COUNT(*) AS n, SUM(version) AS v, MAX(updated_at) AS u, SUM(expires_at IS NULL) AS p,
              GROUP_CONCAT(title || visibility || renderer_id) AS t
       FROM canvases WHERE workspace_id = ?`,
    ).bind(ws),
    env.DB.prepare(
      'SELECT COUNT(*) AS n, GROUP_CONCAT(status) AS s, SUM(touched_at) AS t FROM files WHERE workspace_id = ?',
    ).bind(ws),
    env.DB.prepare('SELECT COUNT(*) AS n, SUM(view_count) AS v FROM share_links'),
    env.DB.prepare(
      'SELECT COUNT(*) AS n, COUNT(revoked_at) AS r FROM api_keys WHERE workspace_id = ?',
    ).bind(ws),
    env.DB.prepare('SELECT COUNT(*) AS n FROM sessions'),
    env.DB.prepare('SELECT COUNT(*) AS n FROM users'),
    env.DB.prepare(
      'SELECT COUNT(*) AS n, GROUP_CONCAT(url) AS u FROM webhooks WHERE workspace_id = ?',
    ).bind(ws),
  ])
  return JSON.stringify(results.map((r) => r.results))
}

it(`refuses ${RUNS.toLocaleString('en')} generated hostile requests with a 4xx and changes nothing`, async () => {
  const { arbitrary, routes } = hostileRequests(world)
  const before = await snapshot(world.owner.workspaceId)
  const seen = new Map<string, number>()
  let state = await fingerprint()
  await fc.assert(
    fc.asyncProperty(arbitrary, async (h) => {
      const where = `${h.attack}: ${h.init.method} ${h.path.slice(0, 200)}`
      const res = await call(h.path, { ...h.init, ...credentials(h), env: UNLIMITED })
      seen.set(routeName(h.route), (seen.get(routeName(h.route)) ?? 0) + 1)
      expect(res.status, where).toBeGreaterThanOrEqual(400)
      expect(res.status, where).toBeLessThan(500)
      const text = await res.text()
      if (h.route.json) {
        const body = JSON.parse(text)
        expect(body, where).toEqual({
          error: { code: expect.any(String), message: expect.any(String), request_id: REQUEST_ID },
        })
        expect(CODES[res.status], where).toContain(body.error.code)
        expect(body.error.message.length, where).toBeGreaterThan(0)
      } else {
        expect(res.headers.get('Content-Type'), where).toMatch(/^text\/html/)
      }
      // Moved on before the check, so that fast-check's shrinking compares each rerun with the
      // state just before it, not with the state before the first failure.
      const before = state
      state = await fingerprint()
      expect(JSON.parse(state), where).toEqual(JSON.parse(before))
    }),
    { numRuns: RUNS },
  )
  // Every route of the table was attacked.
  expect(routes.map(routeName).filter((r) => !seen.has(r))).toEqual([])
  expect(await snapshot(world.owner.workspaceId)).toEqual(before)
}, 300_000)
