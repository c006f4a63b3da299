import { env } from 'cloudflare:test'
import fc from 'fast-check'
import { beforeAll, expect, it } from 'vitest'
import { call, REQUEST_ID } from './api'
import { hostileRequests, type Hostile } from './hostile'
import { routeName, ROUTES, type Route } from './routes'
import { runs } from './runs'
import { snapshot } from './state'
import { watchedBindings } from './write-watch'
import { buildWorld, ownerCredentials, type World } from './world'

// Generated hostile requests across the routes of the table (docs/api.md, errors: no input,
// however malformed, produces a 500 or an HTML error on an API route). Each one is refused with a
// 4xx (and the error body, on a JSON route), and leaves the owner's workspace and the user list
// exactly as they were. 10,000 in all (HOSTILE_RUNS for a longer hunt), shared by the files that
// attack the routes in parts, each in proportion to its routes: the parts run side by side.

const CODES: Record<number, string[]> = {
  400: ['invalid_request', 'upload_incomplete', 'checksum_mismatch'],
  401: ['unauthorized', 'share_password_required'],
  403: ['forbidden', 'share_password_invalid', 'signup_closed', 'comments_disabled'],
  404: [
    'not_found',
    'canvas_not_found',
    'version_not_found',
    'file_not_found',
    'share_not_found',
    'webhook_not_found',
    'comment_not_found',
    'member_not_found',
    'invite_not_found',
    'review_not_found',
  ],
  409: ['share_token_taken', 'conflict', 'webhook_limit', 'last_owner', 'not_approved'],
  410: ['share_expired', 'share_exhausted'],
  413: ['payload_too_large'],
}
const OAUTH_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'invalid_scope',
  'unsupported_grant_type',
  'invalid_redirect_uri',
  'invalid_client_metadata',
]
// Rate limits would turn the flood into 429s and hide what validation says.
const UNLIMITED = {
  API_LIMITER: undefined,
  AUTH_LIMITER: undefined,
  PUBLIC_LIMITER: undefined,
  SHARE_PASSWORD_LIMITER: undefined,
  FRAME_LIMITER: undefined,
  SITE_LIMITER: undefined,
  COMMENT_LIMITER: undefined,
  CLIENT_DOCUMENT_LIMITER: undefined,
}

/** This part's share of all the hostile requests. */
function runsFor(routes: Route[]) {
  const all = env.HOSTILE_RUNS === '' ? runs(10_000) : Number(env.HOSTILE_RUNS)
  if (!(all >= 1)) throw new Error(`HOSTILE_RUNS must be a count, got '${env.HOSTILE_RUNS}'`)
  return Math.max(1, Math.round((all * routes.length) / ROUTES.length))
}

/** One test: the hostile requests to `routes` (`which`, in its name) are all refused. */
export function refusesHostileRequests(which: string, routes: Route[]) {
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
        'SELECT COUNT(*) AS n, COUNT(revoked_at) AS r, SUM(expires_at) AS e FROM oauth_grants',
      ),
      env.DB.prepare('SELECT COUNT(*) AS n, COUNT(used_at) AS u FROM oauth_secrets'),
      env.DB.prepare(
        'SELECT COUNT(*) AS n, GROUP_CONCAT(url) AS u FROM webhooks WHERE workspace_id = ?',
      ).bind(ws),
    ])
    // The OAuth library's clients, grants and tokens.
    const kv = (await env.OAUTH_KV.list()).keys.length
    return JSON.stringify([...results.map((r) => r.results), kv])
  }

  const count = runsFor(routes)
  it(`refuses ${count.toLocaleString('en')} generated hostile requests to ${which} with a 4xx and changes nothing`, async () => {
    const arbitrary = hostileRequests(world, routes)
    const before = await snapshot(world.owner.workspaceId)
    const seen = new Map<string, number>()
    const watched = watchedBindings()
    let state = await fingerprint()
    await fc.assert(
      fc.asyncProperty(arbitrary, async (h) => {
        const where = `${h.attack}: ${h.init.method} ${h.path.slice(0, 200)}`
        watched.seen.wrote = false
        const res = await call(h.path, {
          ...h.init,
          ...credentials(h),
          env: { ...UNLIMITED, ...watched.bindings },
        })
        seen.set(routeName(h.route), (seen.get(routeName(h.route)) ?? 0) + 1)
        expect(res.status, where).toBeGreaterThanOrEqual(400)
        expect(res.status, where).toBeLessThan(500)
        const text = await res.text()
        if (h.route.oauth && h.init.method === h.route.method) {
          // The OAuth protocol's own routes answer in OAuth's form.
          const body = JSON.parse(text)
          expect(body, where).toEqual({
            error: expect.any(String),
            error_description: expect.any(String),
          })
          expect(OAUTH_CODES, where).toContain(body.error)
        } else if (h.route.json) {
          const body = JSON.parse(text)
          expect(body, where).toEqual({
            error: {
              code: expect.any(String),
              message: expect.any(String),
              request_id: REQUEST_ID,
            },
          })
          expect(CODES[res.status], where).toContain(body.error.code)
          expect(body.error.message.length, where).toBeGreaterThan(0)
        } else {
          expect(res.headers.get('Content-Type'), where).toMatch(/^text\/html/)
        }
        if (!watched.seen.wrote) return
        // Moved on before the check, so that fast-check's shrinking compares each rerun with the
        // state just before it, not with the state before the first failure.
        const before = state
        state = await fingerprint()
        expect(JSON.parse(state), where).toEqual(JSON.parse(before))
      }),
      { numRuns: count },
    )
    // The requests went through the watched bindings (a key is looked up in D1 for most).
    expect(watched.seen.trips).toBeGreaterThan(0)
    // Every route of the part was attacked, when there were requests enough that one left out
    // would be a fault of the generators, not chance (a shorter run, as test:fast asks, may miss one).
    if (count >= routes.length * 20) {
      expect(routes.map(routeName).filter((r) => !seen.has(r))).toEqual([])
    }
    expect(await snapshot(world.owner.workspaceId)).toEqual(before)
  }, 600_000)
}
