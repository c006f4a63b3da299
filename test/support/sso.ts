import { inject } from 'vitest'
import type { Tamper } from '../node/support/identity-provider'
import { call } from './api'

// Signing in by single sign-on in the workers tests, against the real OpenID Connect provider and
// Access-style certs the project's global setup runs on 127.0.0.1 (test/node/support/
// identity-provider.ts): each test names a client of its own, so their people never mix.

export const CLIENT_SECRET = 'test-oidc-client-secret'

export const providerUrl = () => inject('identityProviderUrl')

let clients = 0

/** The vars of a deployment signing in with a new client of the test provider. */
export function oidcEnv(extra: Record<string, string> = {}) {
  return {
    OIDC_ISSUER: providerUrl(),
    OIDC_CLIENT_ID: `canvas-${++clients}-${crypto.randomUUID().slice(0, 8)}`,
    OIDC_CLIENT_SECRET: CLIENT_SECRET,
    OIDC_NAME: 'Acme SSO',
    ...extra,
  }
}

export type Claims = { sub?: string; email?: string; email_verified?: unknown }

/**
 * A sign-in as a browser makes it: the login page's link, the provider's redirect back, and the
 * callback, each with the cookies the one before set. Answers the callback's response.
 */
export async function oidcSignIn(
  env: ReturnType<typeof oidcEnv>,
  claims: Claims,
  options: { tamper?: Tamper; next?: string; dropAttempt?: boolean } = {},
) {
  await fetch(`${providerUrl()}/people/${env.OIDC_CLIENT_ID}`, {
    method: 'POST',
    body: JSON.stringify({ claims, tamper: options.tamper }),
  })
  const query = options.next ? `?next=${encodeURIComponent(options.next)}` : ''
  const start = await call(`/auth/oidc${query}`, { env })
  if (start.status !== 302) throw new Error(`no redirect: ${start.status} ${await start.text()}`)
  const attempt = /canvas_oidc=[^;]*/.exec(start.headers.get('Set-Cookie') ?? '')?.[0]
  const atProvider = await fetch(start.headers.get('Location')!, { redirect: 'manual' })
  const back = new URL(atProvider.headers.get('Location')!)
  return call(back.pathname + back.search, {
    env,
    cookie: options.dropAttempt ? undefined : attempt,
  })
}

/** An Access token of the team `<provider>/<team>`, for `audience`, made wrong by `tamper`. */
export async function accessToken(
  team: string,
  audience: string,
  email: string,
  tamper?: Tamper,
): Promise<string> {
  const res = await fetch(`${providerUrl()}/access-token`, {
    method: 'POST',
    body: JSON.stringify({ team, tamper, claims: { aud: [audience], email } }),
  })
  return ((await res.json()) as { token: string }).token
}

/** The vars of a deployment behind the Access team `team`. */
export const accessEnv = (team: string, extra: Record<string, string> = {}) => ({
  ACCESS_TEAM_DOMAIN: `${providerUrl()}/${team}`,
  ACCESS_AUD: `aud-${team}`,
  ...extra,
})
