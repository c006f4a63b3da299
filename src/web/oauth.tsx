import type { AuthRequest } from '@cloudflare/workers-oauth-provider'
import { page } from '../http/actor/steps'
import { MEMBER, READ } from '../http/actor/need'
import { Hono, type Context } from 'hono'
import {
  apiScopes,
  askedScopes,
  chosenScopes,
  recordGrant,
  type OAuthScope,
} from '../domain/oauth/grants'

import { actorIn } from '../http/actor/build'
import { listWorkspaces } from '../domain/workspaces/workspaces'
import type { SignedInEnv } from '../http/context'
import { forgetGrants, guardClientDocument, oauthHelpers, oauthLibrary } from '../http/oauth'
import { newId, sha256Hex } from '../lib/crypto'
import { appNameProblem } from '../lib/names'
import { Consent, type ConsentView } from './pages/consent'
import { ErrorPage } from './pages/error'
import { checkedForm, csrfToken, viewerOf } from './session'

// The authorize step of the OAuth server (docs/agents.md): a page of the web app. A
// person not signed in logs in and comes back to the same request; a signed-in one sees which app
// asks, where the access goes and what it allows, and allows or denies. The form posts back to
// the same address, so the request it answers is the very one shown, checked again.

export const consent = new Hono<SignedInEnv>()

type Helpers = Awaited<ReturnType<typeof oauthHelpers>>
type Asked = { request: AuthRequest; scopes: OAuthScope[] }

consent.get('/authorize', page(READ, { https: true }), (c) =>
  answering(c, async (api) => {
    const asked = await authorizationRequest(c, api)
    if (asked instanceof Response) return asked
    const about = await api.describeConsent(asked.request)
    const named = appNameProblem(about.clientName)
    if (named) return cannotConnect(c, `The app’s name ${named}.`)
    // Chromium holds the redirect that follows the form's post to form-action: this page's
    // policy also names the one origin the app's answer goes to.
    c.set('formAction', new URL(asked.request.redirectUri).origin)
    const url = new URL(c.req.url)
    return consentPage(c, url.pathname + url.search, {
      clientName: about.clientName,
      clientDomain: about.clientDomain,
      redirectHost: about.redirectHost,
      redirectIsLoopback: about.redirectIsLoopback,
      write: asked.scopes.includes('canvas:write'),
    })
  }),
)

consent.post('/authorize', page(MEMBER, { https: true }), checkedForm, (c) =>
  answering(c, async (api) => {
    const asked = await authorizationRequest(c, api)
    if (asked instanceof Response) return asked
    const { request } = asked
    const { authorizationErrorRedirect } = await oauthLibrary()
    if (c.var.form.get('decision') !== 'approve') {
      return c.redirect(authorizationErrorRedirect(request, 'access_denied', 'access was denied'))
    }
    const about = await api.describeConsent(request)
    const named = appNameProblem(about.clientName)
    if (named) return cannotConnect(c, `The app’s name ${named}.`)
    // The person chose the workspace and the access on the page, whatever the app asked for.
    const form = c.var.form
    const workspaceId = form.get('workspace_id') || c.var.session.workspace.workspace_id
    const actor = await actorIn(c.var.svc, c.var.actor, workspaceId)
    const scopes = chosenScopes(form.get('access'), asked.scopes)
    // The library files the grant under a subject of its own, the first part of every token it
    // makes: the person's id stays out of the tokens (props, which it keeps encrypted, hold it).
    const subject = newId()
    const { redirectTo } = await api.completeAuthorization({
      request,
      userId: subject,
      metadata: {},
      scope: scopes,
      props: { userId: actor.userId, workspaceId: actor.workspaceId },
      // Earlier grants to the same app are ended in D1 and then here (recordGrant).
      revokeExistingGrants: false,
    })
    // The library's codes are `<subject>:<grant>:<secret>`.
    const code = new URL(redirectTo).searchParams.get('code') ?? ''
    const replaced = await recordGrant(c.var.svc, actor, {
      grantId: code.split(':')[1],
      subject,
      clientId: request.clientId,
      clientName: about.clientName,
      redirectUri: request.redirectUri,
      scopes: apiScopes(scopes),
      codeHash: await sha256Hex(code),
    })
    forgetGrants(c, replaced)
    return c.redirect(redirectTo)
  }),
)

/**
 * The consent page of a request (an app's, or a device's: src/web/device.tsx), with the person's
 * workspaces to pick the one the access is for, the session's chosen unless they pick another.
 */
export async function consentPage<E extends SignedInEnv>(
  c: Context<E>,
  action: string,
  asks: Omit<ConsentView, 'workspaces' | 'current'>,
) {
  const { svc, session } = c.var
  const workspaces = await listWorkspaces(svc, session.user.user_id)
  return c.html(
    <Consent
      user={viewerOf(session)}
      csrf={await csrfToken(svc, session)}
      action={action}
      view={{
        ...asks,
        workspaces: workspaces.map((w) => ({ workspace_id: w.workspace_id, name: w.name })),
        current: session.workspace.workspace_id,
      }}
    />,
  )
}

/**
 * The authorization request in this address, checked by the library (the client, its exact
 * redirect URI, the response type, PKCE S256), and here: PKCE for every client, and only the
 * scopes Canvas has (none asked means both). A request that fails once its redirect URI is known
 * to be the app's goes back there with the error; before that, it is shown here and goes nowhere.
 */
async function authorizationRequest<E extends SignedInEnv>(
  c: Context<E>,
  api: Helpers,
): Promise<Asked | Response> {
  const clientId = new URL(c.req.url).searchParams.get('client_id')
  const refused = await guardClientDocument(c, clientId)
  if (refused) return cannotConnect(c, `${refused}.`)
  const request = await api.parseAuthRequest(new Request(c.req.url))
  const { authorizationErrorRedirect } = await oauthLibrary()
  if (!request.codeChallenge) {
    const redirect = authorizationErrorRedirect(
      request,
      'invalid_request',
      'PKCE (S256) is required',
    )
    return c.redirect(redirect)
  }
  const scopes = askedScopes(request.scope)
  if (typeof scopes === 'string') {
    return c.redirect(authorizationErrorRedirect(request, 'invalid_scope', scopes))
  }
  return { request, scopes }
}

/**
 * Runs a step of the authorize page; a request the library refuses is answered as it says: back
 * to the app when that is safe (`redirectTo`), else on a page here.
 */
async function answering<E extends SignedInEnv>(
  c: Context<E>,
  step: (api: Helpers) => Promise<Response>,
) {
  const api = await oauthHelpers(c)
  const { AuthorizationError, CimdFetchError } = await oauthLibrary()
  try {
    return await step(api)
  } catch (err) {
    if (err instanceof AuthorizationError && err.redirectTo) return c.redirect(err.redirectTo)
    if (!(err instanceof AuthorizationError) && !(err instanceof CimdFetchError)) throw err
    const message =
      err instanceof AuthorizationError
        ? `The app’s request cannot be accepted: ${err.description}.`
        : 'The app’s metadata document could not be fetched or is not valid.'
    return cannotConnect(c, message)
  }
}

/** The page of a request that goes nowhere: the app cannot be told, or must not be. */
function cannotConnect<E extends SignedInEnv>(c: Context<E>, message: string) {
  return c.html(
    <ErrorPage
      status={400}
      title="This app cannot connect"
      message={message}
      user={c.var.session.user}
    />,
    400,
  )
}
