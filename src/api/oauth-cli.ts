import { Hono, type Context } from 'hono'
import { pollDevice, startDevice, type Approval } from '../domain/oauth/devices'
import { createKey } from '../domain/keys'
import { deviceApprover } from '../http/actor/build'
import { askedScopes } from '../domain/oauth/grants'
import { exchangeGrantForKey, storedCliClient } from '../domain/oauth/cli'
import { isDocumentUrl } from '../domain/oauth/client-documents'
import { openOverHttps } from '../http/actor/steps'
import type { AppEnv } from '../http/context'
import { clientNetworkOf, limit } from '../http/limits'
import {
  DEVICE_AUTHORIZATION_PATH,
  DEVICE_PAGE_PATH,
  forgetGrants,
  oauthAnswer,
  oauthError,
  oauthHelpers,
  requireOAuthOrigin,
} from '../http/oauth'
import { documented } from '../http/route-docs'
import { readBytes } from '../http/validate'
import { AppError } from '../lib/errors'
import { keyName } from '../schema/requests'
import { grantOfAccessToken } from '../http/actor/token'

// What the CLI's `svc login` uses of the OAuth server (docs/cli.md#logging-in), beside the
// authorization code flow every app has: the device authorization grant (RFC 8628) for a machine
// without a browser, and a token exchange (RFC 8693) that turns a fresh access token into an API
// key, since the API takes keys. Either way the CLI ends up with a key, listed in Settings.

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code'
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange'
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token'
/** The token type of an API key, as a token exchange names what it asks for and gets. */
export const API_KEY_TYPE = 'urn:canvas:params:oauth:token-type:api-key'

const MAX_BODY_BYTES = 16 * 1024

export const oauthCli = new Hono<AppEnv>()

oauthCli.post(
  DEVICE_AUTHORIZATION_PATH,
  openOverHttps,
  documented({
    summary: 'Start a device sign-in',
    description:
      'RFC 8628: for the deployment’s own CLI (`cli_client_id` in the metadata), a ' +
      '`device_code` to poll the token endpoint with (`grant_type=' +
      DEVICE_CODE_GRANT +
      '`) and a `user_code` the person types at `verification_uri`, valid 10 min; `key_name` ' +
      'names the key it makes. ' +
      'Approved, the poll answers an API key. Form-encoded.',
    tag: 'OAuth',
    responses: { 200: { description: 'The codes.', schema: 'deviceAuthorization' } },
    oauthErrors: {
      400: '`invalid_request`, `invalid_scope`',
      401: '`invalid_client`',
      429: '`temporarily_unavailable`: too many requests from this address',
    },
  }),
  (c) =>
    oauthAnswer(c, async () => {
      await limit(c.env.AUTH_LIMITER, `ip:${clientNetworkOf(c)}`)
      const origin = requireOAuthOrigin(c)
      const form = await formOf(c)
      const clientId = form.get('client_id')
      if (!clientId) return oauthError(400, 'invalid_request', 'client_id is required')
      // A metadata document's URL would be fetched for a sign-in nobody may have started.
      const client = isDocumentUrl(clientId)
        ? null
        : await (await oauthHelpers(c)).lookupClient(clientId)
      if (!client) return oauthError(401, 'invalid_client', 'unknown client: register it first')
      // A device sign-in ends in an API key: it is the deployment's own CLI's alone.
      if (clientId !== (await storedCliClient(c.var.svc))) {
        return oauthError(
          401,
          'invalid_client',
          'a device sign-in is for this deployment’s own CLI (svc login --device) only',
        )
      }
      const scopes = askedScopes((form.get('scope') ?? '').split(' ').filter(Boolean))
      if (typeof scopes === 'string') return oauthError(400, 'invalid_scope', scopes)
      // The machine's name for the key (`svc on <host>`), shown on the device page beside the code.
      const name = keyNameOf(form)
      if (name instanceof Response) return name
      const clientName = name ?? client.clientName ?? clientId
      const started = await startDevice(c.var.svc, { clientId, clientName }, scopes)
      const page = origin + DEVICE_PAGE_PATH
      return Response.json({
        device_code: started.deviceCode,
        user_code: started.userCode,
        verification_uri: page,
        verification_uri_complete: `${page}?user_code=${started.userCode}`,
        expires_in: started.expiresIn,
        interval: started.interval,
      })
    }),
)

/** The token endpoint's answer to a device code's poll (RFC 8628 3.4, 3.5). */
export async function deviceToken(c: Context<AppEnv>, form: URLSearchParams) {
  const deviceCode = form.get('device_code')
  const clientId = form.get('client_id')
  if (!deviceCode || !clientId) {
    return oauthError(400, 'invalid_request', 'device_code and client_id are required')
  }
  const poll = await pollDevice(c.var.svc, deviceCode, clientId)
  switch (poll.outcome) {
    case 'approved':
      return approvedKey(c, poll.approval)
    case 'pending':
      return oauthError(400, 'authorization_pending', 'not yet approved: keep polling')
    case 'slow_down':
      return oauthError(400, 'slow_down', 'polled too soon: wait 5 seconds more between polls')
    case 'denied':
      return oauthError(400, 'access_denied', 'the person denied the sign-in')
    case 'expired':
      return oauthError(400, 'expired_token', 'the code expired: start again')
    default:
      return oauthError(400, 'invalid_grant', 'unknown device code')
  }
}

/**
 * The key of an approved device code: the person's, in the workspace they chose, by the role they
 * hold there now; none once they are no longer a member.
 */
async function approvedKey(c: Context<AppEnv>, approval: Approval) {
  const svc = c.var.svc
  let approver
  try {
    approver = await deviceApprover(svc, approval)
  } catch (err) {
    if (err instanceof AppError && err.status === 404) {
      return oauthError(400, 'access_denied', 'the person is no longer a member of the workspace')
    }
    throw err
  }
  const made = await createKey(svc, approver, approval.keyName, approval.scopes, 'device')
  return apiKeyAnswer(made.key, made.scopes)
}

/**
 * RFC 8693: an access token of a standing grant for an API key of the same person, workspace and
 * scopes, named as the app is; the grant ends, the key replacing it.
 */
export async function exchangeForKey(c: Context<AppEnv>, form: URLSearchParams) {
  const token = form.get('subject_token')
  const subjectType = form.get('subject_token_type')
  if (!token || subjectType !== 'urn:ietf:params:oauth:token-type:access_token') {
    return oauthError(
      400,
      'invalid_request',
      `subject_token and subject_token_type=${ACCESS_TOKEN_TYPE} are required`,
    )
  }
  if (form.get('requested_token_type') !== API_KEY_TYPE) {
    return oauthError(400, 'invalid_request', `requested_token_type must be ${API_KEY_TYPE}`)
  }
  const name = keyNameOf(form)
  if (name instanceof Response) return name
  const grant = await grantOfAccessToken(c, token)
  if (!grant) return oauthError(400, 'invalid_grant', 'invalid or expired access token')
  const svc = c.var.svc
  if (grant.by.clientId !== (await storedCliClient(svc))) {
    return oauthError(
      400,
      'unauthorized_client',
      'only this deployment’s own CLI (svc login) may exchange its access for an API key',
    )
  }
  const made = await exchangeGrantForKey(svc, grant, name ?? grant.by.name, grant.scopes)
  if (!made) return oauthError(400, 'invalid_grant', 'invalid or expired access token')
  forgetGrants(c, [{ grantId: grant.by.grantId!, subject: token.split(':')[0] }])
  return apiKeyAnswer(made.key, made.scopes, true)
}

/**
 * The name the CLI asks its key to have (`key_name`: `svc on <host>`), checked as any key's
 * name; undefined when it names none, or the refusal.
 */
function keyNameOf(form: URLSearchParams): string | undefined | Response {
  const asked = form.get('key_name')
  if (asked === null) return undefined
  const checked = keyName.safeParse(asked)
  if (checked.success) return checked.data
  const why = checked.error.issues[0]?.message ?? 'is not a key name'
  return oauthError(400, 'invalid_request', `key_name: ${why}`)
}

function apiKeyAnswer(key: string, scopes: string[], exchanged = false) {
  return Response.json({
    access_token: key,
    token_type: 'Bearer',
    scope: scopes.includes('write') ? 'canvas:read canvas:write' : 'canvas:read',
    ...(exchanged && { issued_token_type: API_KEY_TYPE }),
  })
}

/** The token endpoint's answers to the CLI's grant types, by `grant_type`. */
export const CLI_GRANTS: Record<
  string,
  (c: Context<AppEnv>, form: URLSearchParams) => Promise<Response>
> = {
  [DEVICE_CODE_GRANT]: deviceToken,
  [TOKEN_EXCHANGE_GRANT]: exchangeForKey,
}

async function formOf(c: Context<AppEnv>) {
  const body = await readBytes(c, MAX_BODY_BYTES, 'the request')
  return new URLSearchParams(new TextDecoder().decode(body))
}
