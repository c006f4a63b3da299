import * as z from 'zod/mini'
import { ERROR_CODES } from '../lib/errors'
import { EVENT_TYPES, TEST_EVENT } from '../lib/events'
import { ROLES, SCOPES } from './requests'
import { AUDIT_ACTIONS, AUDIT_ACTOR_KINDS } from '../lib/audit'

// Response shapes: what the API answers, for the API description (/openapi.json), the domain's
// presenters (typed by them) and the CLI. Times are ISO 8601 strings; sizes are bytes.

const time = z.iso.datetime()
const count = z.int().check(z.minimum(0))
const visibility = z.enum(['private', 'public'])

export const file = z.object({
  file_id: z.string(),
  sha256: z.string(),
  size: count,
  mime: z.string(),
})

/** Who published a canvas: the member who made it, by the name their workspace knows them by. */
export const author = z.object({ user_id: z.string(), name: z.string() })

export const canvas = z.object({
  canvas_id: z.string(),
  owner_user_id: z.string(),
  author,
  title: z.string(),
  ext: z.string(),
  renderer_id: z.string(),
  visibility,
  version: z.int().check(z.minimum(1)),
  size: count,
  created_at: time,
  updated_at: time,
  expires_at: z.nullable(time),
  /** The newest version a review approved (docs/reviews.md); null until one is. */
  approved_version: z.nullable(z.int().check(z.minimum(1))),
})

export const item = z.extend(file, { path: z.string() })

export const versionItemList = z.object({
  version: z.int().check(z.minimum(1)),
  main: z.string(),
  items: z.array(item),
})

export const canvasDetail = z.extend(canvas, {
  file,
  renderer: z.object({ renderer_id: z.string(), name: z.string() }),
  /** A site's files, by path (only when the version holds more than one). */
  items: z.optional(z.array(item)),
  /** The path of the site's main item (with `items`). */
  main: z.optional(z.string()),
})

export const canvasList = z.object({
  canvases: z.array(canvas),
  limit: count,
  offset: count,
  /** Pass as `cursor` for the next page; null on the last. */
  next_cursor: z.nullable(z.string()),
})

export const searchResult = z.object({
  canvas_id: z.string(),
  title: z.string(),
  author,
  ext: z.string(),
  version: count,
  visibility,
  size: count,
  updated_at: z.string(),
  expires_at: z.nullable(z.string()),
  /** Text of the canvas around the words found (plain text, never markup). */
  snippet: z.string(),
  /** Where the words found lie in `snippet`: [start, end) in UTF-16 code units. */
  highlights: z.array(z.tuple([count, count])),
  view_url: z.string(),
})

export const searchList = z.object({
  results: z.array(searchResult),
  /** Pass as `cursor` for the next page; null on the last. */
  next_cursor: z.nullable(z.string()),
})

export const version = z.object({
  version: z.int().check(z.minimum(1)),
  size: count,
  created_at: time,
  /** The main file's digest. */
  sha256: z.string(),
  /** How many files the version holds: 1, or a site's count. */
  items: z.int().check(z.minimum(1)),
})

export const versionList = z.object({
  versions: z.array(version),
  /** With `limit` or `cursor`: pass as `cursor` for the next page; null on the last. */
  next_cursor: z.optional(z.nullable(z.string())),
})

export const presign = z.object({
  file_id: z.string(),
  blob_key: z.string(),
  upload_url: z.string(),
  content_type: z.string(),
  expires_in: count,
  exists: z.boolean(),
  headers: z.record(z.string(), z.string()),
})

export const finalized = z.object({ file, reused: z.boolean() })

export const share = z.object({
  token: z.string(),
  canvas_id: z.string(),
  expires_at: z.nullable(time),
  view_count: count,
  max_views: z.nullable(count),
  version: z.nullable(z.int().check(z.minimum(1))),
  /** What it shows: the latest version, its pinned `version`, or the approved one. */
  follow: z.enum(['latest', 'version', 'approved']),
  has_password: z.boolean(),
  allow_comments: z.boolean(),
  created_at: time,
})

export const shareList = z.object({ shares: z.array(share) })

export const publicShare = z.object({
  canvas: z.object({
    title: z.string(),
    ext: z.string(),
    renderer_id: z.string(),
    version: z.int().check(z.minimum(1)),
    size: count,
    created_at: time,
  }),
  share: z.object({
    expires_at: z.nullable(time),
    view_count: count,
    has_password: z.boolean(),
    allow_comments: z.boolean(),
  }),
})

const user = z.object({ user_id: z.string(), email: z.string() })
const role = z.enum(ROLES)
const workspace = z.object({ workspace_id: z.string(), name: z.string(), role })

export const account = z.object({ user, workspace })

export const me = z.object({
  user,
  workspace,
  key: z.object({ key_id: z.string(), name: z.string(), scopes: z.array(z.enum(SCOPES)) }),
})

export const workspaceEntry = z.object({
  workspace_id: z.string(),
  name: z.string(),
  role,
  personal: z.boolean(),
  created_at: time,
})
export const workspaceList = z.object({ workspaces: z.array(workspaceEntry) })
export const workspaceSettings = z.extend(workspaceEntry, {
  default_expires_in: z.nullable(z.string()),
  quota_bytes: z.nullable(z.number()),
  /** Every share link and public page shows approved versions only (docs/reviews.md). */
  require_review: z.boolean(),
})
export const deletedWorkspace = z.object({
  workspace_id: z.string(),
  deleted: z.boolean(),
  canvases: z.number(),
})
export const member = z.object({ user_id: z.string(), email: z.string(), role, joined_at: time })
export const memberList = z.object({ members: z.array(member) })
export const memberRole = z.object({ user_id: z.string(), role })
export const invite = z.object({
  invite_id: z.string(),
  role,
  email: z.nullable(z.string()),
  expires_at: time,
  created_at: time,
})
export const createdInvite = z.extend(invite, { url: z.string() })
export const inviteList = z.object({ invites: z.array(invite) })
export const resetLink = z.object({ user_id: z.string(), url: z.string(), expires_at: time })
export const joined = z.object({ workspace })
export const auditEvent = z.object({
  event_id: z.string(),
  at: time,
  actor: z.object({
    kind: z.enum(AUDIT_ACTOR_KINDS),
    user_id: z.optional(z.string()),
    name: z.string(),
    /** The person behind a member, a key or an app, as they were named then. */
    person: z.optional(z.object({ user_id: z.string(), name: z.string(), email: z.string() })),
  }),
  action: z.enum(AUDIT_ACTIONS),
  target: z.object({ type: z.string(), id: z.string() }),
  details: z.record(z.string(), z.unknown()),
})
export const auditList = z.object({
  events: z.array(auditEvent),
  next_cursor: z.nullable(z.string()),
})

export const usage = z.object({
  workspace_id: z.string(),
  canvases: z.object({
    total: count,
    temporary: count,
    permanent: count,
    public: count,
    private: count,
  }),
  versions: count,
  files: count,
  bytes: z.object({ content: count, stored: count }),
  shares: z.object({ active: count }),
  limits: z.object({
    max_file_bytes: count,
    max_direct_upload_bytes: count,
    temp_canvas_ttl: count,
    upload_url_ttl: count,
    download_url_ttl: count,
    // The workspace's own (docs/teams.md): null, no quota; null, new canvases are kept.
    quota_bytes: z.nullable(count),
    default_expires_in: z.nullable(z.string()),
  }),
})

export const renderer = z.object({
  renderer_id: z.string(),
  name: z.string(),
  exts: z.array(z.string()),
  scripts: z.boolean(),
})

export const rendererList = z.object({ renderers: z.array(renderer) })

export const key = z.object({
  key_id: z.string(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(z.enum(SCOPES)),
  created_at: time,
  last_used_at: z.nullable(time),
})

export const keyList = z.object({ keys: z.array(key) })

/** A new key: the only answer that ever holds its secret. */
export const createdKey = z.extend(key, { key: z.string() })

export const commentAuthor = z.object({
  name: z.string(),
  /** `owner`: the workspace's person (a key or the web app); `agent`: over MCP; `visitor`: a share link's reader. */
  kind: z.enum(['member', 'agent', 'visitor']),
})

export const reply = z.object({
  reply_id: z.string(),
  body: z.string(),
  author: commentAuthor,
  created_at: time,
})

const anchor = z.union([
  z.object({
    quote: z.object({
      exact: z.string(),
      prefix: z.optional(z.string()),
      suffix: z.optional(z.string()),
    }),
  }),
  z.object({ point: z.object({ x: z.number(), y: z.number() }) }),
])

export const comment = z.object({
  comment_id: z.string(),
  canvas_id: z.string(),
  /** The version it was made on. */
  version: z.int().check(z.minimum(1)),
  /** A text quote or a point of the content; null for the canvas as a whole. */
  anchor: z.nullable(anchor),
  body: z.string(),
  author: commentAuthor,
  status: z.enum(['open', 'resolved']),
  created_at: time,
  resolved_at: z.nullable(time),
  replies: z.array(reply),
})

export const commentList = z.object({ comments: z.array(comment) })

/** What a wait for comments found: the threads with something new, and where to wait from next. */
export const commentNews = z.object({ comments: z.array(comment), since: time })

/** A member as a review names them. */
const person = z.object({ user_id: z.string(), name: z.string() })

export const review = z.object({
  review_id: z.string(),
  canvas_id: z.string(),
  /** The version under review. */
  version: z.int().check(z.minimum(1)),
  state: z.enum(['pending', 'approved', 'changes_requested']),
  requested_by: person,
  /** The named reviewers, then anyone else who decided (a review that named none). */
  reviewers: z.array(
    z.extend(person, {
      decision: z.nullable(z.enum(['approve', 'request_changes'])),
      decided_at: z.nullable(time),
    }),
  ),
  note: z.nullable(z.string()),
  created_at: time,
  decided_at: z.nullable(time),
})

export const reviewList = z.object({ reviews: z.array(review) })

// The reasons are lib/views.ts's REFUSALS.
const refusals = z.object({
  expired: count,
  revoked: count,
  wrong_password: count,
  max_views: count,
})

/** Who read a canvas (docs/readership.md). */
export const readership = z.object({
  canvas_id: z.string(),
  /** False when the deployment counts no reads (VIEW_ANALYTICS=off). */
  enabled: z.boolean(),
  days: count,
  total: count,
  /** Each day's distinct readers, added up. */
  unique: count,
  by_day: z.array(z.object({ date: z.string(), views: count, unique: count })),
  by_version: z.array(z.object({ version: count, views: count })),
  by_link: z.array(
    z.object({ token_prefix: z.string(), views: count, unique: count, last_viewed_at: time }),
  ),
  members: z.array(
    z.object({ user_id: z.string(), name: z.string(), last_viewed_at: time, last_version: count }),
  ),
  /** Refused opens of the canvas's links, by reason. */
  denied: refusals,
  /** The distinct readers those refused opens came from, each day's added up. */
  denied_unique: refusals,
})

/** A workspace's most read canvases (docs/readership.md). */
export const workspaceReadership = z.object({
  workspace_id: z.string(),
  enabled: z.boolean(),
  days: count,
  canvases: z.array(
    z.object({ canvas_id: z.string(), title: z.string(), views: count, unique: count }),
  ),
})

export const webhook = z.object({
  webhook_id: z.string(),
  url: z.string(),
  events: z.array(z.enum(EVENT_TYPES)),
  /** The events its own credential causes are not sent to it. */
  exclude_self: z.boolean(),
  created_at: time,
})

/** A test event on its way to one webhook. */
export const webhookTest = z.object({ event_id: z.string(), type: z.literal(TEST_EVENT) })

export const webhookList = z.object({ webhooks: z.array(webhook) })

/** A new webhook: the only answer that ever holds its signing secret. */
export const createdWebhook = z.extend(webhook, { secret: z.string() })

export const delivery = z.object({
  /** The `id` of the event's body: the same on every attempt. */
  event_id: z.string(),
  type: z.enum([...EVENT_TYPES, TEST_EVENT]),
  attempts: count,
  /** The HTTP status of the last attempt's answer; null before one, or when none came. */
  last_status: z.nullable(z.int()),
  /** Why the last attempt failed when no status says it (no answer in time, a refused address). */
  last_error: z.nullable(z.string()),
  /** When the next attempt is due; null once delivered or given up. */
  next_attempt_at: z.nullable(time),
  delivered_at: z.nullable(time),
  created_at: time,
})

export const deliveryList = z.object({ deliveries: z.array(delivery) })

export const success = z.object({ success: z.literal(true) })

export const revoked = z.object({ success: z.literal(true), revoked: count })

export const health = z.object({ ok: z.literal(true) })

export const error = z.object({
  error: z.object({
    code: z.enum(ERROR_CODES),
    message: z.string(),
    request_id: z.optional(z.string()),
  }),
})

export type File = z.output<typeof file>
/** /health while the database does not answer: the error envelope, and `ok: false`. */
export const unhealthy = z.extend(error, { ok: z.literal(false) })

export type Canvas = z.output<typeof canvas>
export type CanvasDetail = z.output<typeof canvasDetail>
export type Item = z.output<typeof item>
export type VersionItemList = z.output<typeof versionItemList>
export type CanvasList = z.output<typeof canvasList>
export type SearchList = z.output<typeof searchList>
export type SearchResult = z.output<typeof searchResult>
export type Version = z.output<typeof version>
export type VersionList = z.output<typeof versionList>
export type Presign = z.output<typeof presign>
export type Finalized = z.output<typeof finalized>
export type Share = z.output<typeof share>
export type PublicShare = z.output<typeof publicShare>
export type Me = z.output<typeof me>
export type Usage = z.output<typeof usage>
export type Renderer = z.output<typeof renderer>
export type Key = z.output<typeof key>
export type Comment = z.output<typeof comment>
export type Review = z.output<typeof review>
export type Readership = z.output<typeof readership>
export type Reply = z.output<typeof reply>
export type CommentAuthor = z.output<typeof commentAuthor>
export type Webhook = z.output<typeof webhook>
export type Delivery = z.output<typeof delivery>
export type ErrorEnvelope = z.output<typeof error>
export type WorkspaceEntry = z.output<typeof workspaceEntry>
export type Member = z.output<typeof member>
export type Invite = z.output<typeof invite>
export type CreatedInvite = z.output<typeof createdInvite>
export type AuditList = z.output<typeof auditList>

// OAuth (docs/agents.md): the two discovery documents, and the error form of the
// token and registration endpoints, which is OAuth's own rather than the envelope above.

export const resourceMetadata = z.object({
  resource: z.string(),
  authorization_servers: z.array(z.string()),
  scopes_supported: z.array(z.string()),
  bearer_methods_supported: z.array(z.string()),
  resource_name: z.string(),
  resource_documentation: z.string(),
})

export const serverMetadata = z.looseObject({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  registration_endpoint: z.string(),
  revocation_endpoint: z.string(),
  scopes_supported: z.array(z.string()),
  response_types_supported: z.array(z.string()),
  grant_types_supported: z.array(z.string()),
  code_challenge_methods_supported: z.array(z.string()),
  client_id_metadata_document_supported: z.boolean(),
  device_authorization_endpoint: z.string(),
  cli_client_id: z.string(),
})

export const deviceAuthorization = z.object({
  device_code: z.string(),
  user_code: z.string(),
  verification_uri: z.string(),
  verification_uri_complete: z.string(),
  expires_in: count,
  interval: count,
})

export const tokens = z.object({
  access_token: z.string(),
  token_type: z.string(),
  expires_in: count,
  refresh_token: z.optional(z.string()),
  scope: z.string(),
})

export const registeredClient = z.looseObject({
  client_id: z.string(),
  redirect_uris: z.array(z.string()),
  client_name: z.optional(z.string()),
  token_endpoint_auth_method: z.string(),
})

export const oauthError = z.object({
  error: z.string(),
  error_description: z.optional(z.string()),
})
