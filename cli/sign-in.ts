import { createServer, type Server } from 'node:http'
import { hostname } from 'node:os'
import * as oauth from 'oauth4webapi'
import { CliError } from './errors'

// `svc login` through the browser (docs/cli.md#logging-in): the CLI is a public OAuth client of
// its deployment's authorization server, registered for this one sign-in. In the browser, the
// authorization code flow with PKCE answers on a loopback port; without one, the device
// authorization grant (RFC 8628) shows a code to type elsewhere. Either way the access the person
// approves is turned into an API key (the server's token exchange), which is what the CLI keeps.
// Every step of the protocol is oauth4webapi's.

const SCOPE = 'canvas:read canvas:write'
const API_KEY_TYPE = 'urn:canvas:params:oauth:token-type:api-key'
// How long the browser has to come back.
const CALLBACK_WAIT_MS = 5 * 60_000

export type Say = (line: string) => void

type Issuer = { as: oauth.AuthorizationServer; options: { [oauth.allowInsecureRequests]?: true } }

/** The deployment's authorization server, as its metadata describes it. */
async function authorizationServer(endpoint: string): Promise<Issuer> {
  const issuer = new URL(new URL(endpoint).origin)
  // http only to this machine, where `npm run dev` serves OAuth; the server refuses it elsewhere.
  const insecure = issuer.protocol === 'http:' && isLoopback(issuer)
  const options = insecure ? { [oauth.allowInsecureRequests]: true as const } : {}
  try {
    const res = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...options })
    return { as: await oauth.processDiscoveryResponse(issuer, res), options }
  } catch (err) {
    throw new CliError(
      `${issuer.origin} offers no sign-in through the browser (${reason(err)}): ` +
        'it needs https; use svc login --token with a key from its Settings',
      'unavailable',
    )
  }
}

const isLoopback = (url: URL) => ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)

/** This machine's name as the app's name people see on the consent page and in Settings. */
export function appName(): string {
  const host = hostname()
    .replace(/[^\w.-]/g, '')
    .slice(0, 40)
  return `svc on ${host || 'a computer'}`
}

/**
 * The deployment's own CLI client (`cli_client_id` in its metadata): the one whose sign-ins the
 * server turns into API keys. A deployment from before it names none: the CLI registers, as then.
 */
async function clientOf(server: Issuer, redirectUri: string): Promise<oauth.Client> {
  const own = server.as.cli_client_id
  if (typeof own === 'string' && own) return { client_id: own, token_endpoint_auth_method: 'none' }
  return register(server, redirectUri)
}

async function register(server: Issuer, redirectUri: string): Promise<oauth.Client> {
  const res = await oauth.dynamicClientRegistrationRequest(
    server.as,
    { client_name: appName(), redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' },
    server.options,
  )
  return (await oauth.processDynamicClientRegistrationResponse(res)) as oauth.Client
}

/**
 * Signs in through the browser: opens the consent page, waits for its answer on a loopback port,
 * and answers the API key made of it.
 */
export async function browserSignIn(
  endpoint: string,
  open: (url: string) => Promise<string | null>,
  say: Say,
): Promise<string> {
  const server = await authorizationServer(endpoint)
  const callback = await loopback()
  try {
    const redirectUri = `http://127.0.0.1:${callback.port}/callback`
    const client = await clientOf(server, redirectUri)
    const verifier = oauth.generateRandomCodeVerifier()
    const state = oauth.generateRandomState()
    const url = new URL(server.as.authorization_endpoint!)
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      scope: SCOPE,
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString()
    say('Opening your browser to sign in; if it does not open, go to:')
    say(`  ${url.href}`)
    const why = await open(url.href)
    if (why) say(`(the browser could not be opened: ${why})`)
    const answer = await callback.answer
    const params = checked(() => oauth.validateAuthResponse(server.as, client, answer, state))
    const res = await oauth.authorizationCodeGrantRequest(
      server.as,
      client,
      oauth.None(),
      params,
      redirectUri,
      verifier,
      server.options,
    )
    const tokens = await settled(oauth.processAuthorizationCodeResponse(server.as, client, res))
    return exchangeForKey(server, client, tokens.access_token)
  } finally {
    callback.close()
  }
}

/**
 * Signs in on a machine without a browser: shows where to go and the code to type, and polls
 * until the person approves, denies, or the code expires.
 */
export async function deviceSignIn(endpoint: string, say: Say): Promise<string> {
  const server = await authorizationServer(endpoint)
  // Registration asks for a redirect URI; a device's sign-in never uses it.
  const client = await clientOf(server, 'http://127.0.0.1/callback')
  // The key's name, shown beside the code on the page where the person approves it.
  const asked = { scope: SCOPE, key_name: appName() }
  const started = await settled(
    oauth
      .deviceAuthorizationRequest(server.as, client, oauth.None(), asked, server.options)
      .then((res) => oauth.processDeviceAuthorizationResponse(server.as, client, res)),
  )
  const code = `${started.user_code.slice(0, 4)}-${started.user_code.slice(4)}`
  say(`On any device, open ${started.verification_uri} and type the code ${code}`)
  if (started.verification_uri_complete) say(`  (or open ${started.verification_uri_complete})`)
  let interval = (started.interval ?? 5) * 1000
  const deadline = Date.now() + started.expires_in * 1000
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, interval))
    const res = await oauth.deviceCodeGrantRequest(
      server.as,
      client,
      oauth.None(),
      started.device_code,
      server.options,
    )
    try {
      return (await oauth.processDeviceCodeResponse(server.as, client, res)).access_token
    } catch (err) {
      if (err instanceof oauth.ResponseBodyError && err.error === 'authorization_pending') continue
      if (err instanceof oauth.ResponseBodyError && err.error === 'slow_down') {
        interval += 5000
        continue
      }
      throw signInError(err)
    }
  }
  throw new CliError('the code expired before anyone approved it: run svc login again', 'timeout')
}

/** The access token of the approval for an API key of the same person, workspace and access. */
async function exchangeForKey(server: Issuer, client: oauth.Client, accessToken: string) {
  const res = await oauth.genericTokenEndpointRequest(
    server.as,
    client,
    oauth.None(),
    'urn:ietf:params:oauth:grant-type:token-exchange',
    {
      subject_token: accessToken,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      requested_token_type: API_KEY_TYPE,
      key_name: appName(),
    },
    server.options,
  )
  return (await settled(oauth.processGenericTokenEndpointResponse(server.as, client, res)))
    .access_token
}

/**
 * Ends a key at the deployment (RFC 7009 revocation, `svc logout`); answers why not, or null.
 * A deployment without the OAuth server (http beyond this machine) cannot be told.
 */
export async function revokeKey(endpoint: string, key: string): Promise<string | null> {
  try {
    const server = await authorizationServer(endpoint)
    const client = { client_id: 'svc' }
    const res = await oauth.revocationRequest(server.as, client, oauth.None(), key, server.options)
    await oauth.processRevocationResponse(res)
    return null
  } catch (err) {
    return err instanceof CliError ? err.message : reason(err)
  }
}

/** A loopback HTTP server for the browser's answer: its port, the answer, and how to stop it. */
async function loopback(): Promise<{ port: number; answer: Promise<URL>; close: () => void }> {
  let server: Server | undefined
  let timer: NodeJS.Timeout | undefined
  const answer = new Promise<URL>((resolve, reject) => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', `http://127.0.0.1`)
      if (url.pathname !== '/callback') {
        // The browser asks for a tab icon too: nothing to give, and no error for it to show.
        res.writeHead(url.pathname === '/favicon.ico' ? 204 : 404).end()
        return
      }
      const denied = url.searchParams.has('error')
      res.writeHead(200, {
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-store',
      })
      res.end(callbackPage(denied))
      resolve(url)
    })
    timer = setTimeout(
      () => reject(new CliError('no answer from the browser within 5 minutes', 'timeout')),
      CALLBACK_WAIT_MS,
    )
  })
  await new Promise<void>((resolve, reject) => {
    server!.once('error', reject)
    server!.listen(0, '127.0.0.1', resolve)
  })
  const address = server!.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    port,
    answer,
    close: () => {
      clearTimeout(timer)
      server!.close()
      server!.closeAllConnections()
    },
  }
}

// The tab the browser lands on: the deployment's look in small (its colours and type, light or
// dark as the person's system is), with no asset to fetch from a server that is about to stop.
const CALLBACK_STYLE =
  ':root{color-scheme:light dark;--bg:#f6f8fa;--panel:#fff;--fg:#1f2328;--muted:#59636e;' +
  '--line:#d1d9e0;--accent:#0969da}' +
  '@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--panel:#151b23;--fg:#e6edf3;' +
  '--muted:#9198a1;--line:#3d444d;--accent:#4493f8}}' +
  'body{margin:0;min-height:100vh;display:grid;place-items:center;background:var(--bg);' +
  'color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}' +
  'main{background:var(--panel);border:1px solid var(--line);border-radius:12px;' +
  'padding:24px 28px;margin:16px;max-width:30rem}' +
  'h1{margin:0 0 8px;font-size:22px}p{margin:0;color:var(--muted)}' +
  '.mark{color:var(--accent);font-weight:600;margin-bottom:12px}'

const callbackPage = (denied: boolean) =>
  '<!doctype html><html lang="en"><meta charset="utf-8">' +
  '<meta name="viewport" content="width=device-width,initial-scale=1">' +
  `<title>${denied ? 'Sign-in denied' : 'Signed in'} · svc</title><style>${CALLBACK_STYLE}</style>` +
  '<main><div class="mark">svc</div>' +
  (denied
    ? '<h1>Sign-in denied</h1><p>The command line got nothing. You can close this tab.</p>'
    : '<h1>Signed in</h1><p>Back to your terminal: you can close this tab.</p>') +
  '</main></html>'

function checked<T>(step: () => T): T {
  try {
    return step()
  } catch (err) {
    throw signInError(err)
  }
}

async function settled<T>(step: Promise<T>): Promise<T> {
  try {
    return await step
  } catch (err) {
    throw signInError(err)
  }
}

/** The protocol's refusals in a person's words. */
function signInError(err: unknown): CliError {
  if (err instanceof CliError) return err
  if (err instanceof oauth.AuthorizationResponseError && err.error === 'access_denied') {
    return new CliError('the sign-in was denied in the browser; nothing saved', 'forbidden')
  }
  if (err instanceof oauth.ResponseBodyError && err.error === 'access_denied') {
    return new CliError('the sign-in was denied; nothing saved', 'forbidden')
  }
  if (err instanceof oauth.ResponseBodyError && err.error === 'expired_token') {
    return new CliError(
      'the code expired before anyone approved it: run svc login again',
      'timeout',
    )
  }
  return new CliError(`the sign-in failed: ${reason(err)}`, 'unavailable')
}

function reason(err: unknown): string {
  if (err instanceof oauth.ResponseBodyError || err instanceof oauth.AuthorizationResponseError) {
    return err.error_description ?? err.error
  }
  return err instanceof Error ? err.message : String(err)
}
