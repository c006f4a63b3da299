import type { OpenApiDocument } from '../http/openapi'
import { TOOLS } from './mcp-tools'

// /llms.txt: what an agent needs to publish with Canvas and act on a review, in a few hundred
// words. The routes and tools are listed from the API description and the MCP server themselves,
// so none can be stale.

export function llmsText(doc: OpenApiDocument, origin: string): string {
  const routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => `- ${method.toUpperCase()} ${path}: ${op.summary}`),
  )
  const tools = TOOLS.map(
    (t) => `- \`${t.name}\`${t.need.scope === 'write' ? ' (write)' : ''}: ${t.description}`,
  )
  return [
    intro(origin),
    chatApps(origin),
    mcp(origin, tools),
    httpApi(origin, routes),
    reviews(),
    teams(),
    commandLine(origin),
  ].join('\n')
}

/** What Canvas is, and the key everything needs. */
function intro(origin: string): string {
  return `# Canvas

> Canvas publishes files as live, versioned, shareable web pages. Push an HTML page, a Markdown
> report, a chart, a CSV, a PDF or a code file and get a URL that renders it safely for a person.
> Every update is a new version at the same URL; canvases expire unless made permanent; share links
> can expire, stop after a number of views, or need a password.

Everything needs an API key (\`svc_...\`), which a person creates on ${origin}/settings and gives
you. Send it as \`Authorization: Bearer <key>\`. A \`read\` key lists and reads; a \`write\` key may
also publish, change, share and delete.
`
}

/** Chat apps that connect by OAuth, with the address alone. */
function chatApps(origin: string): string {
  return `## Chat apps (no key)

A chat app that takes remote MCP servers (Claude, ChatGPT) connects with the address
${origin}/mcp alone: the person adds it as a custom connector and approves it in the browser
(OAuth 2.1). Without a key, POST /mcp answers 401 with \`WWW-Authenticate: Bearer
resource_metadata="${origin}/.well-known/oauth-protected-resource"\`; the authorization server's
metadata is at ${origin}/.well-known/oauth-authorization-server (registration at POST
/oauth/register, or a client ID metadata document's URL as \`client_id\`; authorization code with
PKCE S256; tokens at POST /oauth/token). Scopes: \`canvas:read\`, and \`canvas:write\` to change
things. Access tokens last an hour; refresh tokens work once each.
`
}

/** The MCP server, and the tools it lists. */
function mcp(origin: string, tools: string[]): string {
  return `## MCP (recommended for agents)

Streamable HTTP, stateless: ${origin}/mcp with the key as a Bearer token. Client configuration:

\`\`\`json
{ "mcpServers": { "canvas": { "type": "http", "url": "${origin}/mcp",
  "headers": { "Authorization": "Bearer <key>" } } } }
\`\`\`

Publish with \`publish\` (\`content\` or \`content_base64\`, and \`filename\`: its extension chooses how
the page is shown) and give the person the \`view_url\` it answers (a share link's address is its
\`url\`). Publish again with \`canvas_id\` for a
new version. To change part of a text canvas, \`edit_canvas\` with \`edits: [{"old": ..., "new":
...}]\`: each \`old\` is literal text that must occur exactly once (include enough around it), the
edits apply in order and make one new version, and if any cannot apply nothing changes. A failed
call is a result with \`isError\`, its text starting with an error code such as
\`canvas_not_found\` or \`invalid_request\` (\`forbidden\` for a change with a read-only key). Tools
that change something take an \`idempotency_key\` (a new UUID per operation): retrying with it
never does the work twice.

Every tool declares an \`outputSchema\` and answers \`structuredContent\` of that shape (the same
JSON is in its text). In chat apps that support MCP Apps, the tools that answer a canvas
(\`publish\`, \`get_canvas\`, \`update_canvas\`, \`edit_canvas\`) are shown with the view
\`ui://canvas/view.html\` (its title and facts, and a button to open the page).

Over HTTP the same holds with the \`Idempotency-Key\` header on every POST, PATCH and DELETE.

Tools:

${tools.join('\n')}
`
}

/** The HTTP API: publishing in one request or three, sites, webhooks, and the routes. */
function httpApi(origin: string, routes: string[]): string {
  return `## HTTP API

Described in OpenAPI 3.1 at ${origin}/openapi.json (for people: ${origin}/docs). JSON in and out;
errors are \`{"error":{"code","message","request_id"}}\`. To publish a file of up to the direct upload
limit in one request:

\`\`\`sh
curl -H "Authorization: Bearer $KEY" -F file=@report.md ${origin}/v1/canvases
curl -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \\
  -d '{"expires_in":"7d"}' ${origin}/v1/canvases/<canvas_id>/shares
\`\`\`

Larger files: POST /v1/upload/presign, PUT the bytes to the URL it answers (a 412 means they are
stored already), POST /v1/upload/finalize, then create the canvas with the \`file_id\`.

A site (an HTML report with its stylesheet, scripts, images and data): upload each file as above,
then create the canvas with \`items: [{"path": "index.html", "file_id": "..."}, ...]\` and \`main\`
(default index.html) instead of \`file_id\` and \`ext\`. Relative links between the files work in
the page. A new version sends every item again: files whose bytes the workspace already has are
not uploaded again (presign answers \`exists: true\`). Over MCP: \`publish\` with \`files\`.

To be called back when something happens in the workspace (a new version, a canvas deleted, a
share link used up), register a webhook with a write key: POST /v1/webhooks
\`{"url": "https://...", "events": ["canvas.version_created"]}\`. Each event is POSTed to the URL as
\`{id, type, created_at, data}\`, signed in the \`Canvas-Signature\` header (\`t=<unix seconds>,v1=<hex
HMAC-SHA256 of "<t>.<raw body>">\` under the \`secret\` the 201 answer holds, shown only then), and
retried with the same \`id\` until a 2xx, for at least 24 hours.

Routes:

${routes.join('\n')}
`
}

/** The review loop: hearing of comments, answering them, resolving them. */
function reviews(): string {
  return `## Reviews: acting on comments

People comment on a canvas on its page, or through a share link made with \`"allow_comments":
true\` (\`share_canvas\` takes it too), whose readers give a display name and need no account. A
comment belongs to the version it was made on and points at a \`quote\` of the text, a \`point\` of
the content (fractions of its width and height), or, with \`anchor: null\`, the whole canvas; it
has replies one level deep, and is \`open\` until resolved. The loop:

1. Hear of them: a webhook (POST /v1/webhooks with \`"events": ["comment.created",
   "comment.replied"], "exclude_self": true\`, so that your own replies are not sent back to
   you; \`data\` is \`{canvas_id, comment, actor}\`, with \`reply\` for a reply), or poll
   \`list_comments\` (GET /v1/canvases/<id>/comments).
2. Read the open ones: \`list_comments\` (\`status\`: \`open\` by default, \`resolved\` or \`all\`).
3. Publish a new version that answers them: \`publish\` with \`canvas_id\`, or \`edit_canvas\`.
4. Reply to each, saying what changed: \`reply_comment\` (POST
   /v1/canvases/<id>/comments/<comment_id>/replies).
5. Resolve it: \`resolve_comment\` (POST /v1/canvases/<id>/comments/<comment_id>/resolve).

What a tool writes is signed with the app's or the key's name as an \`agent\`; what the API is
sent, with the key's name as a \`member\`. An unknown comment is \`comment_not_found\`; a share
link that does not allow comments answers \`comments_disabled\`. From a shell: \`svc comments <id>
--json\`, \`svc comment <id> --reply <comment_id> "..."\`, \`svc resolve <id> <comment_id>\`.
`
}

/** Workspaces, roles, and what a quota refusal means. */
function teams(): string {
  return `## Teams

A key acts in one workspace (\`list_workspaces\`, GET /v1/workspaces: the person's, with their role
in each), never beyond the role its person holds there at that moment: a \`viewer\`'s key reads
only (a change is 403 \`forbidden\`), an \`editor\` publishes, shares and deletes any canvas of the
workspace, an \`admin\` also manages members, invites and webhooks and reads the audit log (GET
/v1/audit). A workspace may keep new canvases or let them expire after its own time (\`expires_at\`
in each answer says which), and may have a storage quota: an upload past it is 413
\`quota_exceeded\`, whose message says what is used and allowed; tell the person rather than retry.
`
}

/** The CLI this deployment serves. */
function commandLine(origin: string): string {
  return `## Command line

This deployment serves its CLI: \`npm install -g ${origin}/cli/svc.tgz\`. A person signs it in with
\`svc login\` (the browser) or \`svc login --device\` (a code typed elsewhere); a script or agent
uses \`svc login --token <key>\` or \`CANVAS_API_KEY\`. \`svc push report.html --json\` publishes and prints the canvas as JSON; \`svc push site/\` publishes
a folder as a site (\`svc --help\` lists every
command; every one takes \`--json\`; errors go to stderr as JSON with exit code 1, usage errors 2).
`
}
