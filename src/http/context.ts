import type { Context, Hono } from 'hono'
import { fromThisMachine as requestFromThisMachine } from '../lib/addresses'
import { randomBase62 } from '../lib/crypto'
import type { AppError } from '../lib/errors'
import { logError } from '../lib/log'
import type { Bindings } from '../lib/settings'
import type { Actor } from '../domain/actor'
import type { Access } from './actor/statement'
import type { Services } from '../domain/services'
import type { SessionInfo } from '../domain/users'

export type AppEnv = {
  Bindings: Bindings
  Variables: {
    svc: Services
    /** Who acts: set by the route's access step once the credential passed (http/actor). */
    actor: Actor
    /** What the route's access step needs of its actor (http/actor/steps.ts). */
    access?: Access
    /** Set on web pages for a signed-in person, and by the session access steps. */
    session?: SessionInfo & { leftFrom?: string }
    requestId: string
    /**
     * Why a Cloudflare Access token the request carried signed no one in (a stale cookie, say):
     * the login page says it; a page anyone may see ignores it.
     */
    accessRefusal?: AppError
    /** The presented API key's hash and its rate-limit verdict, on routes that batch its check. */
    keyCheck?: { hash: string; limit: Promise<boolean> }
    /** Set by a route whose answer must not be replayed for a whole day (http/idempotency). */
    keepAnswerMs?: number
    /**
     * An origin this page's form may send the browser to besides this one (the consent page:
     * the app its answer redirects to, which Chromium checks against form-action).
     */
    formAction?: string
  }
}

/** A sub-app and the path it is mounted at (a signed-in area's app has the narrower env). */
export type Mount = readonly [path: string, routes: Hono<AppEnv> | Hono<SignedInEnv>]

/** Mounts each sub-app on `app` in order. */
export function mountAll(app: Hono<AppEnv>, mounts: readonly Mount[]) {
  // A signed-in area's own middleware narrows its env: mounted, it takes requests as any other.
  for (const [path, routes] of mounts) app.route(path, routes as Hono<AppEnv>)
}

export type AppContext = Context<AppEnv>

/** Routes behind a session middleware: the session is there, and the type says so. */
export type SignedInEnv = {
  Bindings: Bindings
  Variables: AppEnv['Variables'] & { session: SessionInfo & { leftFrom?: string } }
}

// Cloudflare sets cf-ray on every request it forwards; locally, or for a header no one sane would
// send, a random id stands in. Made on first use, so a request that never fails or logs pays nothing.
const RAY = /^[\w-]{1,64}$/

/** The id that ties an error body to its log line: cf-ray when present, else random. */
export function requestId(c: Context<AppEnv>): string {
  let value = c.get('requestId')
  if (!value) {
    const ray = c.req.header('cf-ray')
    value = ray && RAY.test(ray) ? ray : randomBase62(16)
    c.set('requestId', value)
  }
  return value
}

export function requestOrigin(c: Context): string {
  return new URL(c.req.url).origin
}

/**
 * A request from the machine the service runs on (`npm run dev`): to a loopback name, from a
 * loopback address. The address is the connection's (`wrangler dev` names it in CF-Connecting-IP,
 * as Cloudflare does for a deployed Worker, whose clients are never loopback): a Host header
 * alone is the client's to write. `npm run dev` bound beyond loopback (`--ip 0.0.0.0`) also sets
 * a setup token, since a client there could write CF-Connecting-IP itself (scripts/lib/dev.mjs).
 */
export const fromThisMachine = (c: Context): boolean => requestFromThisMachine(c.req.raw)

/**
 * The origin the service names itself by in documents anyone may fetch (/llms.txt, /openapi.json)
 * and in the links it hands agents: APP_URL when set, else the request's own origin, which comes
 * from its Host header; an answer built from it must then not be cached for other hosts.
 */
export function publicOrigin<E extends AppEnv>(
  c: Context<E>,
): { origin: string; fromHost: boolean } {
  const configured = c.var.svc.settings.appUrl
  return configured
    ? { origin: configured, fromHost: false }
    : { origin: requestOrigin(c), fromHost: true }
}

/** Runs work after the response without letting its failure reach the client. */
export function afterResponse(c: Context<AppEnv>, work: Promise<unknown>) {
  const logged = work.catch((err) => logError({ request_id: requestId(c) }, err))
  try {
    c.executionCtx.waitUntil(logged)
  } catch {
    // No execution context (direct app.request in a unit test): the promise still runs.
  }
}

/**
 * The origin a document names (the API's description, the CLI's package), with the caching it allows: a shared cache may keep a
 * document that names the configured address, but one built from the Host header is for that
 * host only (else `Host: evil.example` could plant another host's URLs for everyone).
 */
export function selfOrigin(c: AppContext): string {
  const { origin, fromHost } = publicOrigin(c)
  c.header('Cache-Control', fromHost ? 'private, max-age=300' : 'public, max-age=300')
  if (fromHost) c.header('Vary', 'Host')
  return origin
}
