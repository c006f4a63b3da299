import { buildApp, answersJson } from '../../src/app'
import { statementOf, type AccessKind } from '../../src/http/actor/statement'
import { docOf } from '../../src/http/route-docs'

// The route table: every HTTP route the Worker answers, with how it is authorized, read off the
// routes the app registers (each route's access step states its kind of credential and its need:
// src/http/actor/steps.ts). It is the list the security tests walk (authorization and role
// matrices, hostile input, headers): a route added is walked at once, by what it says of itself.

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS'

/**
 * - `none`: anyone (health, assets, the login and signup forms and their JSON twins).
 * - `key`: `Authorization: Bearer <API key>` with `scope` (docs/api.md).
 * - `session`: a JSON route of the web app; the session cookie, same origin only.
 * - `page`: a web page that needs a session; without one it redirects to /login.
 * - `viewer`: a web page for the owner's session, or anyone when the canvas is public.
 * - `share`: a share token in the path, and its password when the link has one.
 * - `signed`: a signature in the query string (storage URLs, content frames).
 */
export type AuthKind = AccessKind

export type Route = {
  method: Method
  path: string
  auth: AuthKind
  /** The scope a credential needs (key and session routes, and pages of a signed-in person). */
  scope?: 'read' | 'write'
  /** The least role a member needs in the workspace (docs/teams.md). */
  role?: 'viewer' | 'editor' | 'admin' | 'owner'
  /** Where it acts: the credential's workspace, or the one its path names. */
  workspace?: 'credential' | 'path' | 'new'
  /** A path parameter naming a person whom acting on needs no role (leaving). */
  self?: string
  /** Takes an app's OAuth access token besides an API key (the MCP endpoint). */
  token?: true
  /** The route answers JSON (API); the others answer HTML pages, redirects or content. */
  json: boolean
  /** It hands out a canvas's content (bytes, a redirect to them, or a frame showing them). */
  content?: true
  /** A route of the OAuth protocol: its own errors are OAuth's `{error, error_description}`. */
  oauth?: true
  /** Served over https only (or on the machine itself): the tests call it at https. */
  https?: true
}

export const routeName = (r: { method: string; path: string }) => `${r.method} ${r.path}`

/** Every route of `app`, as its own steps describe it. */
export function routesOf(app: ReturnType<typeof buildApp>): Route[] {
  const byName = new Map<string, Route>()
  for (const registered of app.routes.filter((r) => r.method !== 'ALL')) {
    const name = routeName(registered)
    const statement = statementOf(registered.handler)
    const doc = docOf(registered.handler)
    const route: Route = byName.get(name) ?? {
      method: registered.method as Method,
      path: registered.path,
      auth: 'none',
      json: answersJson(registered.path),
    }
    if (statement) {
      route.auth = statement.kind
      if (statement.need) {
        route.role = statement.need.role
        route.scope = statement.need.scope
      }
      if (statement.workspace) route.workspace = statement.workspace
      if (statement.self) route.self = statement.self
      if (statement.token) route.token = true
      if (statement.content) route.content = true
      if (statement.https) route.https = true
    }
    if (doc?.oauthErrors) route.oauth = true
    byName.set(name, route)
  }
  return [...byName.values()]
}

export const ROUTES: Route[] = routesOf(buildApp())
