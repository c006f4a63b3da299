import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose'
import * as oidc from 'openid-client'
import { AppError } from '../../lib/errors'
import type { AccessSettings, OidcSettings } from '../../lib/settings'
import type { ProvenIdentity } from './sign-in'

// The identity providers' tokens, checked by the maintained libraries of the field: jose verifies
// signatures and claims against a provider's published keys (refetched when a token names a key
// it has not seen), openid-client runs OpenID Connect's authorization code flow (discovery, PKCE,
// state, nonce, the ID token's claims). Every refusal says why, for the page that shows it.

// Asymmetric signatures only: `none` and shared-secret algorithms would let anyone sign.
const SIGNING_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384', 'EdDSA']

// One key set per address for the isolate's life: jose caches the keys and refetches them when a
// token names a `kid` it does not hold, so a provider's rotation is picked up at once. Tokens with
// made-up kids make it fetch at most once per cooldown.
const KEYS_COOLDOWN_MS = 2_000
const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>()
const keySetAt = (url: string) => {
  let keys = keySets.get(url)
  if (!keys) {
    keys = createRemoteJWKSet(new URL(url), { cooldownDuration: KEYS_COOLDOWN_MS })
    keySets.set(url, keys)
  }
  return keys
}

/** The person a Cloudflare Access token names, once it verifies (CF_Authorization). */
export async function verifyAccessToken(
  settings: AccessSettings,
  token: string,
): Promise<ProvenIdentity> {
  const keys = keySetAt(`${settings.teamDomain}/cdn-cgi/access/certs`)
  const { payload } = await verified('Cloudflare Access', () =>
    jwtVerify(token, keys, {
      issuer: settings.teamDomain,
      audience: settings.audience,
      algorithms: ['RS256'],
      requiredClaims: ['exp', 'email'],
    }),
  )
  const email = typeof payload.email === 'string' ? payload.email : ''
  // Access's `sub` differs between its applications; the team and the email are the identity.
  return {
    issuer: settings.teamDomain,
    subject: email.toLowerCase(),
    email,
    emailVerified: true,
    method: 'access',
  }
}

/** What a sign-in keeps between leaving for the provider and coming back (a signed cookie). */
export type OidcAttempt = { state: string; nonce: string; verifier: string; next: string | null }

/** The provider's authorization URL for a new sign-in, and what its answer is checked against. */
export async function startOidc(settings: OidcSettings, redirectUri: string, next: string | null) {
  const config = await configOf(settings)
  const attempt: OidcAttempt = {
    state: oidc.randomState(),
    nonce: oidc.randomNonce(),
    verifier: oidc.randomPKCECodeVerifier(),
    next,
  }
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: 'openid email profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(attempt.verifier),
    code_challenge_method: 'S256',
    state: attempt.state,
    nonce: attempt.nonce,
  })
  return { url, attempt }
}

/** The person the provider's answer (`callback`, the URL it sent the browser to) proves. */
export async function finishOidc(
  settings: OidcSettings,
  callback: URL,
  attempt: OidcAttempt,
): Promise<ProvenIdentity> {
  const config = await configOf(settings)
  const tokens = await refusedAs('the identity provider', () =>
    oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: attempt.verifier,
      expectedState: attempt.state,
      expectedNonce: attempt.nonce,
      idTokenExpected: true,
    }),
  )
  // openid-client checks the ID token's claims (nonce included); its signature, by the
  // provider's keys, here.
  const metadata = config.serverMetadata()
  if (!tokens.id_token || !metadata.jwks_uri) {
    throw new AppError('forbidden', 'the identity provider sent no ID token to verify')
  }
  const { payload } = await verified('the identity provider', () =>
    jwtVerify(tokens.id_token!, keySetAt(metadata.jwks_uri!), {
      issuer: metadata.issuer,
      audience: settings.clientId,
      algorithms: SIGNING_ALGORITHMS,
      requiredClaims: ['sub', 'exp', 'iat'],
    }),
  )
  return identityOf(metadata.issuer, payload)
}

/**
 * A provider's `email_verified`: `true` (or the string `"true"`, as some write it) is verified;
 * absent, the provider does not say; anything else, `"false"` included, is not verified.
 */
function emailVerified(said: unknown): boolean | undefined {
  if (said === undefined) return undefined
  return said === true || said === 'true'
}

function identityOf(issuer: string, payload: JWTPayload): ProvenIdentity {
  if (typeof payload.email !== 'string' || !payload.email) {
    throw new AppError('forbidden', 'the identity provider did not say your email (scope email)')
  }
  const verified = payload.email_verified
  return {
    issuer,
    subject: payload.sub!,
    email: payload.email,
    emailVerified: emailVerified(verified),
    method: 'oidc',
  }
}

// Discovery once per isolate and provider; a failure is not kept, so the next sign-in tries again.
const configs = new Map<string, Promise<oidc.Configuration>>()

function configOf(settings: OidcSettings): Promise<oidc.Configuration> {
  const key = `${settings.issuer} ${settings.clientId}`
  let config = configs.get(key)
  if (!config) {
    const loopback = new URL(settings.issuer).protocol === 'http:'
    config = refusedAs('the identity provider', () =>
      oidc.discovery(
        new URL(settings.issuer),
        settings.clientId,
        settings.clientSecret,
        undefined,
        // The settings allow http only for a loopback provider (lib/settings.ts).
        loopback ? { execute: [oidc.allowInsecureRequests] } : undefined,
      ),
    )
    configs.set(key, config)
    config.catch(() => configs.delete(key))
  }
  return config
}

/** A library's refusal of a token, as the sentence a person is shown. */
async function verified<T>(who: string, check: () => Promise<T>): Promise<T> {
  try {
    return await check()
  } catch (err) {
    throw new AppError('forbidden', `${who}'s token was refused: ${whyRefused(err)}`)
  }
}

async function refusedAs<T>(who: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step()
  } catch (err) {
    if (err instanceof AppError) throw err
    throw new AppError('forbidden', `signing in with ${who} failed: ${whyRefused(err)}`)
  }
}

const REASONS: Record<string, string> = {
  ERR_JWT_EXPIRED: 'it has expired',
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED: 'its signature does not verify',
  ERR_JWKS_NO_MATCHING_KEY: 'it is signed by a key the provider does not publish',
  ERR_JOSE_ALG_NOT_ALLOWED: 'its signing algorithm is not allowed',
  ERR_JWS_INVALID: 'it is not a signed token',
  ERR_JWT_INVALID: 'it is not a valid token',
}

const CLAIMS: Record<string, string> = {
  aud: 'it is meant for another application (aud)',
  iss: 'another issuer made it (iss)',
  exp: 'it has expired (exp)',
  nonce: 'it answers another sign-in (nonce)',
}

type Refusal = { code?: string; message?: string; claim?: string; cause?: unknown }

function whyRefused(err: unknown): string {
  const outer = err as Refusal
  // openid-client wraps oauth4webapi's error, whose cause names the claim that failed.
  const inner = (outer.cause instanceof Error ? outer.cause : outer) as Refusal
  const claim = outer.claim ?? (inner.cause as Refusal | undefined)?.claim
  if (claim && CLAIMS[claim]) return CLAIMS[claim]
  if (outer.code && REASONS[outer.code]) return REASONS[outer.code]
  return (inner.message ?? String(err)).replace(/\.$/, '')
}
