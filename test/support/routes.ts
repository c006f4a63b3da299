// The route table: every HTTP route the Worker answers, with how it is authorized. It is the list
// the security tests walk (authorization matrix, hostile input, headers), and test/routes.test.ts
// holds it equal to the routes the app registers, so a route added without an entry here, and so
// without those tests, fails the suite.

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
export type AuthKind = 'none' | 'key' | 'session' | 'page' | 'viewer' | 'share' | 'signed'

export type Route = {
  method: Method
  path: string
  auth: AuthKind
  scope?: 'read' | 'write'
  /**
   * The least role a member needs in the workspace for a key route (docs/teams.md); the role
   * matrix (test/security/roles.test.ts) holds every key route to it, and fails one without it.
   */
  role?: 'viewer' | 'editor' | 'admin' | 'owner'
  /** The route answers JSON (API); the others answer HTML pages, redirects or content. */
  json: boolean
  /** It hands out a canvas's content (bytes, a redirect to them, or a frame showing them). */
  content?: true
  /** A route of the OAuth protocol: its own errors are OAuth's `{error, error_description}`. */
  oauth?: true
  /** Served over https only (or on the machine itself): the tests call it at https. */
  https?: true
}

const key = (method: Method, path: string, role?: Route['role']): Route => ({
  method,
  path,
  auth: 'key',
  scope: method === 'GET' ? 'read' : 'write',
  role: role ?? (method === 'GET' ? 'viewer' : 'editor'),
  json: true,
})

export const ROUTES: Route[] = [
  { method: 'GET', path: '/health', auth: 'none', json: true },
  { method: 'GET', path: '/openapi.json', auth: 'none', json: true },
  { method: 'GET', path: '/docs', auth: 'none', json: false },
  { method: 'GET', path: '/docs/:page', auth: 'none', json: false },
  { method: 'GET', path: '/llms.txt', auth: 'none', json: true },
  { method: 'GET', path: '/skill.md', auth: 'none', json: true },

  key('POST', '/v1/upload/presign'),
  key('POST', '/v1/upload/finalize'),
  key('POST', '/v1/canvases'),
  key('GET', '/v1/canvases'),
  key('GET', '/v1/canvases/:id'),
  key('PATCH', '/v1/canvases/:id'),
  key('DELETE', '/v1/canvases/:id'),
  key('POST', '/v1/canvases/:id/permanent'),
  { ...key('GET', '/v1/canvases/:id/content'), content: true },
  key('GET', '/v1/canvases/:id/versions'),
  { ...key('GET', '/v1/canvases/:id/versions/:version'), content: true },
  { ...key('GET', '/v1/canvases/:id/content/:path{.+}'), content: true },
  { ...key('GET', '/v1/canvases/:id/versions/:version/content/:path{.+}'), content: true },
  key('GET', '/v1/canvases/:id/versions/:version/items'),
  // JSON errors; the answer itself is a zip.
  { ...key('GET', '/v1/canvases/:id/versions/:version/archive'), content: true },
  key('POST', '/v1/canvases/:id/shares'),
  key('GET', '/v1/canvases/:id/shares'),
  key('DELETE', '/v1/canvases/:id/shares'),
  key('DELETE', '/v1/canvases/:id/shares/:token'),
  key('GET', '/v1/canvases/:id/comments'),
  key('GET', '/v1/canvases/:id/comments/wait'),
  key('POST', '/v1/canvases/:id/comments'),
  key('POST', '/v1/canvases/:id/comments/:comment_id/replies'),
  key('POST', '/v1/canvases/:id/comments/:comment_id/resolve'),
  key('POST', '/v1/canvases/:id/comments/:comment_id/reopen'),
  key('DELETE', '/v1/canvases/:id/comments/:comment_id'),
  key('DELETE', '/v1/canvases/:id/comments/:comment_id/replies/:reply_id'),
  // Where the workspace's events go: its every route needs write, reads too.
  // ... and they are its admins'.
  key('POST', '/v1/webhooks', 'admin'),
  { ...key('GET', '/v1/webhooks', 'admin'), scope: 'write' },
  key('DELETE', '/v1/webhooks/:webhook_id', 'admin'),
  key('POST', '/v1/webhooks/:webhook_id/test', 'admin'),
  { ...key('GET', '/v1/webhooks/:webhook_id/deliveries', 'admin'), scope: 'write' },
  key('GET', '/v1/workspaces'),
  key('POST', '/v1/workspaces'),
  key('PATCH', '/v1/workspaces/:workspace_id', 'admin'),
  key('GET', '/v1/workspaces/:workspace_id/members'),
  key('PATCH', '/v1/workspaces/:workspace_id/members/:user_id', 'admin'),
  key('DELETE', '/v1/workspaces/:workspace_id/members/:user_id', 'admin'),
  key('POST', '/v1/workspaces/:workspace_id/members/:user_id/reset-link', 'admin'),
  key('POST', '/v1/workspaces/:workspace_id/invites', 'admin'),
  key('GET', '/v1/workspaces/:workspace_id/invites', 'admin'),
  key('DELETE', '/v1/workspaces/:workspace_id/invites/:invite_id', 'admin'),
  key('GET', '/v1/audit', 'admin'),
  key('GET', '/v1/search', 'viewer'),
  key('DELETE', '/v1/workspaces/:workspace_id', 'owner'),
  key('GET', '/v1/me'),
  key('GET', '/v1/usage'),
  key('GET', '/v1/renderers'),
  // Every MCP call is a POST: a read key may list and read; each changing tool checks for write.
  { ...key('POST', '/mcp', 'viewer'), scope: 'read' },
  { method: 'GET', path: '/mcp', auth: 'none', json: true },
  { method: 'DELETE', path: '/mcp', auth: 'none', json: true },

  // OAuth for chat apps: discovery and the protocol are open (the token endpoint checks the code
  // or refresh token it is sent); each answers the CORS preflight of browser-based clients.
  ...[
    '/.well-known/oauth-protected-resource',
    '/.well-known/oauth-protected-resource/mcp',
    '/.well-known/oauth-authorization-server',
  ].flatMap((path): Route[] => [
    { method: 'GET', path, auth: 'none', json: true, https: true },
    { method: 'OPTIONS', path, auth: 'none', json: true, https: true },
  ]),
  ...['/oauth/register', '/oauth/token'].flatMap((path): Route[] => [
    { method: 'POST', path, auth: 'none', json: true, oauth: true, https: true },
    { method: 'OPTIONS', path, auth: 'none', json: true, https: true },
  ]),
  // The CLI's device sign-in (RFC 8628): the codes, and the page where a person types one.
  {
    method: 'POST',
    path: '/oauth/device_authorization',
    auth: 'none',
    json: true,
    oauth: true,
    https: true,
  },
  { method: 'GET', path: '/oauth/device', auth: 'page', json: false },
  { method: 'POST', path: '/oauth/device', auth: 'page', json: false },
  // The consent page: the person's session, and its form's CSRF token.
  { method: 'GET', path: '/oauth/authorize', auth: 'page', json: false, https: true },
  { method: 'POST', path: '/oauth/authorize', auth: 'page', json: false, https: true },

  { method: 'GET', path: '/share/:token', auth: 'share', json: true },
  // A link's comments, when it allows them: its readers read and write under a name they give.
  { method: 'GET', path: '/share/:token/comments', auth: 'share', json: true },
  { method: 'POST', path: '/share/:token/comments', auth: 'share', json: true },
  { method: 'POST', path: '/share/:token/comments/:comment_id/replies', auth: 'share', json: true },
  { method: 'GET', path: '/share/:token/content', auth: 'share', json: true, content: true },
  {
    method: 'GET',
    path: '/share/:token/content/:path{.+}',
    auth: 'share',
    json: true,
    content: true,
  },

  { method: 'POST', path: '/auth/signup', auth: 'none', json: true },
  { method: 'POST', path: '/auth/login', auth: 'none', json: true },
  { method: 'POST', path: '/auth/logout', auth: 'none', json: true },
  { method: 'GET', path: '/auth/keys', auth: 'session', json: true },
  { method: 'POST', path: '/auth/keys', auth: 'session', json: true },
  { method: 'DELETE', path: '/auth/keys/:key_id', auth: 'session', json: true },
  { method: 'POST', path: '/auth/switch', auth: 'session', json: true },
  { method: 'GET', path: '/join/:token', auth: 'none', json: false },
  { method: 'POST', path: '/join/:token', auth: 'page', json: false },
  { method: 'GET', path: '/reset/:token', auth: 'none', json: false },
  { method: 'POST', path: '/reset/:token', auth: 'none', json: false },
  { method: 'GET', path: '/settings/members', auth: 'page', json: false },
  { method: 'GET', path: '/settings/activity', auth: 'page', json: false },
  { method: 'POST', path: '/settings/members/invites', auth: 'page', json: false },
  { method: 'POST', path: '/settings/members/invites/:inviteId/revoke', auth: 'page', json: false },
  { method: 'POST', path: '/settings/members/:userId/role', auth: 'page', json: false },
  { method: 'POST', path: '/settings/members/:userId/remove', auth: 'page', json: false },
  { method: 'POST', path: '/settings/members/:userId/reset-link', auth: 'page', json: false },
  { method: 'POST', path: '/settings/members/switch', auth: 'page', json: false },
  { method: 'POST', path: '/settings/members/workspaces', auth: 'page', json: false },
  { method: 'POST', path: '/settings/members/settings', auth: 'page', json: false },
  { method: 'POST', path: '/settings/members/delete', auth: 'page', json: false },
  { method: 'POST', path: '/auth/join/:token', auth: 'session', json: true },

  { method: 'PUT', path: '/_storage/*', auth: 'signed', json: true },
  { method: 'GET', path: '/_storage/*', auth: 'signed', json: true },
  { method: 'GET', path: '/_frame/:id/:version', auth: 'signed', json: false, content: true },
  { method: 'GET', path: '/_frame/:id/:version/raw', auth: 'signed', json: false, content: true },
  // The rendered changes between two versions (`1-2`), for the owner's diff page only.
  { method: 'GET', path: '/_frame/:id/:pair/changes', auth: 'signed', json: false, content: true },
  // A site's files: the signature travels in the path (the token), every file checked alike.
  // The CORS preflight of a site's scripts: answers only headers, never content.
  { method: 'OPTIONS', path: '/_frame/:id/:version/site/*', auth: 'none', json: false },
  {
    method: 'GET',
    path: '/_frame/:id/:version/site/:token/:path{.*}',
    auth: 'signed',
    json: false,
    content: true,
  },
  { method: 'GET', path: '/_live/:id', auth: 'signed', json: false },
  { method: 'GET', path: '/_live/:id/frame', auth: 'signed', json: false },

  { method: 'GET', path: '/cli/svc.tgz', auth: 'none', json: false },
  { method: 'GET', path: '/favicon.svg', auth: 'none', json: false },
  { method: 'GET', path: '/favicon.ico', auth: 'none', json: false },
  { method: 'GET', path: '/', auth: 'page', json: false },
  { method: 'GET', path: '/signup', auth: 'none', json: false },
  { method: 'POST', path: '/signup', auth: 'none', json: false },
  { method: 'GET', path: '/login', auth: 'none', json: false },
  { method: 'POST', path: '/login', auth: 'none', json: false },
  { method: 'GET', path: '/logout', auth: 'page', json: false },
  { method: 'POST', path: '/logout', auth: 'none', json: false },
  { method: 'GET', path: '/auth/oidc', auth: 'none', json: false },
  { method: 'GET', path: '/auth/oidc/callback', auth: 'none', json: false },
  { method: 'GET', path: '/settings', auth: 'page', json: false },
  { method: 'POST', path: '/settings/name', auth: 'page', json: false },
  { method: 'POST', path: '/settings/password', auth: 'page', json: false },
  { method: 'POST', path: '/settings/keys', auth: 'page', json: false },
  { method: 'POST', path: '/settings/keys/:keyId/revoke', auth: 'page', json: false },
  { method: 'POST', path: '/settings/apps/:grantId/revoke', auth: 'page', json: false },
  { method: 'POST', path: '/settings/webhooks', auth: 'page', json: false },
  { method: 'POST', path: '/settings/webhooks/:webhookId/delete', auth: 'page', json: false },
  { method: 'POST', path: '/settings/webhooks/:webhookId/test', auth: 'page', json: false },
  { method: 'POST', path: '/upload/presign', auth: 'page', json: true },
  { method: 'POST', path: '/upload/finalize', auth: 'page', json: true },
  { method: 'POST', path: '/upload/finish', auth: 'page', json: true },
  { method: 'POST', path: '/upload', auth: 'page', json: false },
  { method: 'GET', path: '/c/:id/delete', auth: 'page', json: false },
  { method: 'GET', path: '/c/:id/diff', auth: 'page', json: false },
  { method: 'GET', path: '/c/:id/parts', auth: 'page', json: false },
  // The owner's page's comments: JSON for its script, writes with the CSRF token in a header.
  { method: 'GET', path: '/c/:id/comments', auth: 'page', json: true },
  { method: 'GET', path: '/c/:id/comments/wait', auth: 'page', json: true },
  { method: 'POST', path: '/c/:id/comments', auth: 'page', json: true },
  { method: 'POST', path: '/c/:id/comments/:comment_id/replies', auth: 'page', json: true },
  { method: 'POST', path: '/c/:id/comments/:comment_id/resolve', auth: 'page', json: true },
  { method: 'POST', path: '/c/:id/comments/:comment_id/reopen', auth: 'page', json: true },
  { method: 'DELETE', path: '/c/:id/comments/:comment_id', auth: 'page', json: true },
  {
    method: 'DELETE',
    path: '/c/:id/comments/:comment_id/replies/:reply_id',
    auth: 'page',
    json: true,
  },
  {
    method: 'POST',
    path: '/c/:id/:action{permanent|visibility|delete|unshare}',
    auth: 'page',
    json: false,
  },
  { method: 'POST', path: '/c/:id/share', auth: 'page', json: false },
  { method: 'POST', path: '/c/:id/shares/:token/revoke', auth: 'page', json: false },
  { method: 'GET', path: '/c/:id', auth: 'viewer', json: false },
  { method: 'GET', path: '/c/:id/download', auth: 'viewer', json: false, content: true },
  { method: 'GET', path: '/c/:id/full', auth: 'viewer', json: false, content: true },
  { method: 'GET', path: '/s/:token', auth: 'share', json: false, content: true },
  { method: 'POST', path: '/s/:token', auth: 'share', json: false, content: true },
  { method: 'GET', path: '/s/:token/full', auth: 'share', json: false, content: true },
  { method: 'POST', path: '/s/:token/full', auth: 'share', json: false, content: true },
  // A share page's comments: the public comment routes, the page's view cookie standing for the
  // password it was given.
  { method: 'GET', path: '/s/:token/comments', auth: 'share', json: true },
  { method: 'POST', path: '/s/:token/comments', auth: 'share', json: true },
  { method: 'POST', path: '/s/:token/comments/:comment_id/replies', auth: 'share', json: true },
]

export const routeName = (r: { method: string; path: string }) => `${r.method} ${r.path}`
