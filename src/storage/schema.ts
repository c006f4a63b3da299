import { sql } from 'drizzle-orm'
import {
  foreignKey,
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core'

// The schema drizzle-kit turns into migrations under drizzle/, and the tables and row types the
// queries in src/domain are built from. Each query there is one D1 statement and each batch one
// round trip, so a route's round trips and atomic conditions are visible where they are written.
// Timestamps are Unix milliseconds: cheap to compare and index; the API renders them as ISO 8601.

export const users = sqliteTable('users', {
  userId: text('user_id').primaryKey(),
  email: text('email').notNull().unique(),
  passwordHash: text('password_hash').notNull(),
  createdAt: integer('created_at').notNull(),
  // The name people outside the workspace know this person by (a share link's readers); null:
  // the part of the email before the @ (domain/users.ts).
  displayName: text('display_name'),
})

/** A member's role in a workspace (domain/workspaces/roles.ts), least first. */
const roleColumn = () => text('role', { enum: ['viewer', 'editor', 'admin', 'owner'] })

// owner_user_id is the person who created the workspace; who may do what in it is `members`.
// A personal workspace is the one each account gets at signup: it cannot be deleted, and it is
// where a person's sessions go when they leave another. Its settings (domain/workspaces/settings):
// `quota_bytes` NULL for the deployment's WORKSPACE_QUOTA_BYTES; `default_ttl` the seconds a new
// canvas lives, 0 for kept, NULL for the deployment's TEMP_CANVAS_TTL. A deleted workspace has no
// members left and its canvases expired; the sweep removes its row once nothing else is left.
export const workspaces = sqliteTable(
  'workspaces',
  {
    workspaceId: text('workspace_id').primaryKey(),
    name: text('name').notNull(),
    ownerUserId: text('owner_user_id')
      .notNull()
      .references(() => users.userId, { onDelete: 'cascade' }),
    createdAt: integer('created_at').notNull(),
    personal: integer('personal', { mode: 'boolean' }).notNull().default(false),
    quotaBytes: integer('quota_bytes'),
    defaultTtl: integer('default_ttl'),
    deletedAt: integer('deleted_at'),
    // Every share link and a public canvas's page show only approved versions (docs/reviews.md).
    requireReview: integer('require_review', { mode: 'boolean' }).notNull().default(false),
  },
  (t) => [
    index('workspaces_deleted_idx')
      .on(t.deletedAt)
      .where(sql`deleted_at IS NOT NULL`),
  ],
)

// A person's place in a workspace, and their role there (domain/workspaces/roles.ts). Every key,
// grant and session of the person for the workspace is judged against this row at each request:
// without it they open nothing there.
export const members = sqliteTable(
  'members',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.workspaceId, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.userId, { onDelete: 'cascade' }),
    role: roleColumn().notNull(),
    joinedAt: integer('joined_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.userId] }),
    index('members_user_idx').on(t.userId, t.joinedAt),
    // The workspace's owners, counted (the last one is kept) without reading every member.
    index('members_role_idx').on(t.workspaceId, t.role),
    // The members page, longest-standing first, from the index alone: one row read a member.
    index('members_workspace_idx').on(t.workspaceId, t.joinedAt, t.userId, t.role),
  ],
)

// A link that admits one person to a workspace once. Only the token's SHA-256 is stored; the
// link is shown once, to whoever made it. A used or revoked invite stays (used_at, revoked_at)
// until the sweep, so that the same link answers "no longer valid" rather than a new guess.
export const invites = sqliteTable(
  'invites',
  {
    inviteId: text('invite_id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.workspaceId, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    role: roleColumn().notNull(),
    // Only this address may use it, when set.
    email: text('email'),
    createdBy: text('created_by').notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
    usedBy: text('used_by'),
    revokedAt: integer('revoked_at'),
  },
  (t) => [
    uniqueIndex('invites_token_idx').on(t.tokenHash),
    index('invites_workspace_idx').on(t.workspaceId, t.createdAt),
    index('invites_expires_idx').on(t.expiresAt),
  ],
)

// A person as an identity provider knows them (domain/sso): bound by the provider's issuer and
// its subject for them, never by email alone, which a provider may let its users change. Cloudflare
// Access has no stable subject across its applications: its identities are the team domain and
// the email. `password_hash` of a person who came only by SSO holds no password (users.ts).
export const identities = sqliteTable(
  'identities',
  {
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.userId, { onDelete: 'cascade' }),
    createdAt: integer('created_at').notNull(),
    lastSeenAt: integer('last_seen_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.issuer, t.subject] }),
    index('identities_user_idx').on(t.userId),
  ],
)

// Sign-ins of the CLI on a machine without a browser (RFC 8628): the device code the CLI polls
// with (kept by its SHA-256), the short code a person types on /oauth/device, and once they decide,
// who approved it for which workspace and access. A key is made when the CLI next polls.
export const deviceAuthorizations = sqliteTable(
  'device_authorizations',
  {
    deviceCodeHash: text('device_code_hash').primaryKey(),
    userCode: text('user_code').notNull(),
    clientId: text('client_id').notNull(),
    clientName: text('client_name').notNull(),
    // What the CLI asked for; the person chooses either way.
    scopes: text('scopes').notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    polledAt: integer('polled_at'),
    status: text('status', { enum: ['pending', 'approved', 'denied'] }).notNull(),
    userId: text('user_id').references(() => users.userId, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id').references(() => workspaces.workspaceId, {
      onDelete: 'cascade',
    }),
    approvedScopes: text('approved_scopes'),
  },
  (t) => [
    uniqueIndex('device_authorizations_user_code_idx').on(t.userCode),
    index('device_authorizations_expires_idx').on(t.expiresAt),
  ],
)

// One-time links an admin made for a member to choose a new password (no email is sent: the admin
// hands the link over). Only the token's SHA-256 is kept; a newer link for the same person replaces
// an older one.
export const passwordResets = sqliteTable(
  'password_resets',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.userId, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.workspaceId, { onDelete: 'cascade' }),
    createdBy: text('created_by').notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [
    index('password_resets_user_idx').on(t.userId),
    index('password_resets_expires_idx').on(t.expiresAt),
  ],
)

// The cookie holds a random token; only its SHA-256 is stored, so a leaked table opens no session.
// session_id names a session where the hash must not appear (content frame URLs); it opens nothing.
export const sessions = sqliteTable(
  'sessions',
  {
    sessionHash: text('session_hash').primaryKey(),
    sessionId: text('session_id'),
    userId: text('user_id')
      .notNull()
      .references(() => users.userId, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.workspaceId, { onDelete: 'cascade' }),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    // The workspace the session was moved out of, because its person was removed from it (or it
    // was deleted): its next page says so once, and clears it.
    leftWorkspace: text('left_workspace'),
  },
  (t) => [
    index('sessions_expires_idx').on(t.expiresAt),
    uniqueIndex('sessions_id_idx').on(t.sessionId),
  ],
)

export const apiKeys = sqliteTable(
  'api_keys',
  {
    keyId: text('key_id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.workspaceId, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.userId, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    prefix: text('prefix').notNull(),
    keyHash: text('key_hash').notNull(),
    scopes: text('scopes').notNull(),
    // The person's role in the workspace, copied from `members` in the same batch as every change
    // of it (domain/workspaces), so that a key's lookup reads this one row; a member's removal
    // revokes their keys in that batch too.
    role: roleColumn().notNull().default('owner'),
    // How the key was made: by the person (Settings, POST /auth/keys), or by the CLI's sign-in
    // (a token exchange, a device code), which binds it to the workspace the person approved.
    origin: text('origin', { enum: ['person', 'exchange', 'device'] })
      .notNull()
      .default('person'),
    createdAt: integer('created_at').notNull(),
    lastUsedAt: integer('last_used_at'),
    revokedAt: integer('revoked_at'),
  },
  (t) => [
    uniqueIndex('api_keys_hash_idx').on(t.keyHash),
    index('api_keys_workspace_idx').on(t.workspaceId, t.createdAt),
  ],
)

// One row per distinct content per workspace. `pending` from presign until finalize verified the
// stored object; `ready` content never changes afterwards; `deleting` while the sweep removes it
// (nothing can attach or re-upload it then). touched_at is the last presign, finalize or direct
// upload of the content: the sweep's grace period counts from it.
export const files = sqliteTable(
  'files',
  {
    fileId: text('file_id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.workspaceId, { onDelete: 'cascade' }),
    sha256: text('sha256').notNull(),
    size: integer('size').notNull(),
    mime: text('mime').notNull(),
    blobKey: text('blob_key').notNull(),
    status: text('status', { enum: ['pending', 'ready', 'deleting'] }).notNull(),
    createdAt: integer('created_at').notNull(),
    finalizedAt: integer('finalized_at'),
    touchedAt: integer('touched_at').notNull().default(0),
    // When the sweep last found the file held by a version, once its grace period was over; NULL
    // until then, and again when a canvas that held it is removed. The sweep looks only at files
    // with none, so each file is looked at once per use, never in a scan of all files.
    checkedAt: integer('checked_at'),
    // When a pending file's bytes were seen in storage: stored by the Worker's own upload route,
    // or found by a presign's look at R2. Presign answers `exists` from the row, not R2, whenever
    // the row can tell (see presignAnswer); finalize clears it when the bytes turn out missing.
    uploadedAt: integer('uploaded_at'),
  },
  (t) => [
    uniqueIndex('files_workspace_sha_idx').on(t.workspaceId, t.sha256),
    // Partial, so only the sweep's own writes touch it: D1 bills each index a written row carries.
    index('files_deleting_idx')
      .on(t.fileId)
      .where(sql`status = 'deleting'`),
    index('files_unchecked_idx')
      .on(t.touchedAt)
      .where(sql`checked_at IS NULL`),
    // The uploads under way, with their sizes: what the quota adds to what a workspace stores
    // (domain/workspaces/quota.ts), read from this index alone.
    index('files_pending_idx')
      .on(t.workspaceId, t.touchedAt, t.size)
      .where(sql`status = 'pending'`),
  ],
)

export const canvases = sqliteTable(
  'canvases',
  {
    canvasId: text('canvas_id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.workspaceId, { onDelete: 'cascade' }),
    ownerUserId: text('owner_user_id')
      .notNull()
      .references(() => users.userId, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    ext: text('ext').notNull(),
    rendererId: text('renderer_id').notNull(),
    visibility: text('visibility', { enum: ['private', 'public'] }).notNull(),
    version: integer('version').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    expiresAt: integer('expires_at'),
    // The current version's size, repeated here so that a page of the list is read from one index.
    size: integer('size').notNull().default(0),
    // Comments on the canvas (replies apart), kept by triggers (drizzle/0010_comments.sql) so that
    // a new comment's limit is checked on this row rather than by counting the comments.
    commentCount: integer('comment_count').notNull().default(0),
    // How many versions it holds and their bytes, kept by the trigger that counts a new version
    // into its workspace's totals (drizzle/0012_fourth_review.sql): when the sweep removes the
    // canvas, its workspace's totals lose them from this row, without reading its versions.
    versionCount: integer('version_count').notNull().default(0),
    contentBytes: integer('content_bytes').notNull().default(0),
    // The newest version a review approved (domain/reviews/reviews.ts); null until one is.
    approvedVersion: integer('approved_version'),
    // Reviews asked of it: the sweep removes a canvas's reviews only when it has some.
    reviewCount: integer('review_count').notNull().default(0),
    /**
     * Whether people's reads of it have been written to D1 (docs/readership.md): the sweep then
     * removes its counts with it. Set by its object's write, never on a read.
     */
    viewed: integer('viewed', { mode: 'boolean' }).notNull().default(false),
  },
  (t) => [
    // Holds every column a page of the list shows, so the page is read from the index alone: one
    // row read per canvas listed (D1 bills rows read), at any depth when entered by a cursor.
    index('canvases_workspace_created_idx').on(
      t.workspaceId,
      t.createdAt,
      t.canvasId,
      t.expiresAt,
      t.visibility,
      t.ext,
      t.ownerUserId,
      t.title,
      t.rendererId,
      t.version,
      t.updatedAt,
      t.size,
      t.approvedVersion,
    ),
    // The same for the web app's dashboard, which shows the most recently changed first (its
    // title search reads the index entries, not the table).
    index('canvases_workspace_updated_idx').on(
      t.workspaceId,
      t.updatedAt,
      t.canvasId,
      t.expiresAt,
      t.visibility,
      t.ext,
      t.ownerUserId,
      t.title,
      t.rendererId,
      t.version,
      t.createdAt,
      t.size,
      t.approvedVersion,
      // Whether it has been read: only those have their week of reads looked up.
      t.viewed,
    ),
    // The sweep's walk: canvas_id beside the expiry, so finding the expired reads no table row,
    // and the count of comments, so that only a canvas that has some has them looked for.
    index('canvases_expires_idx').on(t.expiresAt, t.canvasId, t.commentCount),
    // A workspace's temporary and deleted canvases by expiry: usage finds those expired but not yet
    // swept here, and reads nothing of the others. Partial, so permanent canvases never carry it.
    index('canvases_workspace_expires_idx')
      .on(t.workspaceId, t.expiresAt, t.canvasId, t.visibility)
      .where(sql`expires_at IS NOT NULL`),
  ],
)

// A version holds one or more items (version_items); a single file is a site of one item. The
// version row repeats what every read of a canvas needs, so those stay one join: the main item's
// path and file (the canvas's `file`), the sum of the items' sizes and how many there are.
// References to files are RESTRICT: the database itself refuses to drop content that a version
// still holds, whatever the sweep's timing.
export const versions = sqliteTable(
  'versions',
  {
    canvasId: text('canvas_id')
      .notNull()
      .references(() => canvases.canvasId, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    fileId: text('file_id')
      .notNull()
      .references(() => files.fileId, { onDelete: 'restrict' }),
    size: integer('size').notNull(),
    createdAt: integer('created_at').notNull(),
    mainPath: text('main_path').notNull().default(''),
    itemCount: integer('item_count').notNull().default(1),
    // Its canvas's workspace, so that counting it into the workspace's totals reads no canvas row.
    workspaceId: text('workspace_id').notNull().default(''),
  },
  (t) => [
    primaryKey({ columns: [t.canvasId, t.version] }),
    index('versions_file_idx').on(t.fileId),
  ],
)

// The files of a version by path: `style.css`, `img/a.png`. The sweep asks this table whether a
// file is still held (version_items_file_idx).
export const versionItems = sqliteTable(
  'version_items',
  {
    canvasId: text('canvas_id').notNull(),
    version: integer('version').notNull(),
    path: text('path').notNull(),
    fileId: text('file_id')
      .notNull()
      .references(() => files.fileId, { onDelete: 'restrict' }),
  },
  (t) => [
    primaryKey({ columns: [t.canvasId, t.version, t.path] }),
    foreignKey({
      columns: [t.canvasId, t.version],
      foreignColumns: [versions.canvasId, versions.version],
    }).onDelete('cascade'),
    index('version_items_file_idx').on(t.fileId),
  ],
)

// A deleted canvas leaves its links behind with canvas_id NULL, so they answer canvas_not_found
// rather than share_not_found; the sweep drops them later.
export const shareLinks = sqliteTable(
  'share_links',
  {
    token: text('token').primaryKey(),
    canvasId: text('canvas_id').references(() => canvases.canvasId, { onDelete: 'set null' }),
    version: integer('version'),
    passwordHash: text('password_hash'),
    maxViews: integer('max_views'),
    viewCount: integer('view_count').notNull().default(0),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at'),
    // Its readers may read the canvas's comments and add their own under a name of their choice.
    allowComments: integer('allow_comments', { mode: 'boolean' }).notNull().default(false),
    // It shows its canvas's approved version (docs/reviews.md), not the latest nor a pinned one.
    followApproved: integer('follow_approved', { mode: 'boolean' }).notNull().default(false),
    // Its canvas's workspace: the link is counted out of its totals when its canvas goes, once
    // the canvas row that would name the workspace is gone (drizzle/0012_fourth_review.sql).
    workspaceId: text('workspace_id').notNull().default(''),
  },
  (t) => [
    index('share_links_canvas_idx').on(t.canvasId, t.createdAt),
    index('share_links_expires_idx').on(t.expiresAt),
  ],
)

// Links revoked, for a while (SHARE_RETENTION, then the sweep), so that an open of one is
// counted as a refused open of its canvas (docs/readership.md): the link's row is gone.
export const revokedLinks = sqliteTable(
  'revoked_links',
  {
    token: text('token').primaryKey(),
    canvasId: text('canvas_id').notNull(),
    revokedAt: integer('revoked_at').notNull(),
  },
  (t) => [index('revoked_links_revoked_idx').on(t.revokedAt)],
)

// What GET /v1/usage answers, kept as running totals so that answering reads one row, not the
// workspace (docs/api.md). The triggers of the migration that made
// this table keep it in step with every write to canvases, versions, files and share links,
// whoever makes it. They count what the rows say, never the time: canvases not yet removed
// (expired or not), their versions, ready files, and the links of those canvases that are not
// used up, without an expiry or with one the sweep has not yet settled (share_expiries). Usage
// subtracts what has expired meanwhile.
export const workspaceUsage = sqliteTable('workspace_usage', {
  workspaceId: text('workspace_id')
    .primaryKey()
    .references(() => workspaces.workspaceId, { onDelete: 'cascade' }),
  canvases: integer('canvases').notNull().default(0),
  temporary: integer('temporary').notNull().default(0),
  public: integer('public').notNull().default(0),
  versions: integer('versions').notNull().default(0),
  contentBytes: integer('content_bytes').notNull().default(0),
  files: integer('files').notNull().default(0),
  storedBytes: integer('stored_bytes').notNull().default(0),
  shares: integer('shares').notNull().default(0),
})

// The share links with an expiry that workspace_usage.shares counts (of a canvas, not used up),
// kept by the same triggers. A link expires with time, not a write: the sweep settles it once it
// has expired (settled, out of the count), so that usage subtracts only the links expired since
// the sweep last ran, found by share_expiries_workspace_idx, whatever the workspace holds. The row
// stays until the link goes: asked about a time before its expiry, usage counts it back.
export const shareExpiries = sqliteTable(
  'share_expiries',
  {
    token: text('token')
      .primaryKey()
      .references(() => shareLinks.token, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id').notNull(),
    canvasId: text('canvas_id').notNull(),
    expiresAt: integer('expires_at').notNull(),
    settled: integer('settled', { mode: 'boolean' }).notNull().default(false),
  },
  (t) => [
    index('share_expiries_workspace_idx').on(t.workspaceId, t.settled, t.expiresAt, t.canvasId),
    // The sweep's walk: only links not yet settled are in it.
    index('share_expiries_due_idx')
      .on(t.expiresAt)
      .where(sql`settled = 0`),
  ],
)

// Values the deployment makes once and keeps, by name: the OAuth client id of its own CLI.
export const serviceValues = sqliteTable('service_values', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
})

// Small key-value state of the sweep, such as where its listing of storage objects resumes.
export const sweepState = sqliteTable('sweep_state', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
})

// An Idempotency-Key of a workspace: the request it was first sent with (its fingerprint) and,
// once that request answered, the answer to replay. `claim` names the request running under the
// key; `status` stays NULL until it answers. A row past `expires_at` counts as absent.
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.workspaceId, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    fingerprint: text('fingerprint').notNull(),
    claim: text('claim').notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    status: integer('status'),
    contentType: text('content_type'),
    location: text('location'),
    body: text('body'),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.key] }),
    index('idempotency_keys_expires_idx').on(t.expiresAt),
  ],
)

// A site's version as one zip, made by its first download and stored, so that later downloads
// are served from storage and cost the Worker nothing per byte. `building` while one download
// makes it (a claim that goes stale if that download dies), `ready` once stored, `deleting` once
// its canvas is gone and the sweep has the object to remove. No reference to versions: the row
// must outlive its version until the object is gone.
export const archives = sqliteTable(
  'archives',
  {
    canvasId: text('canvas_id').notNull(),
    version: integer('version').notNull(),
    blobKey: text('blob_key').notNull(),
    size: integer('size'),
    status: text('status', { enum: ['building', 'ready', 'deleting'] }).notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.canvasId, t.version] }),
    index('archives_deleting_idx')
      .on(t.blobKey)
      .where(sql`status = 'deleting'`),
  ],
)

// Bytes of archives downloaded by each anonymous client in an hour: the budget that bounds what a
// visitor of a public canvas can make the service send. The client is a hash of its IP address.
export const downloadBudgets = sqliteTable(
  'download_budgets',
  {
    client: text('client').notNull(),
    windowStart: integer('window_start').notNull(),
    bytes: integer('bytes').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.client, t.windowStart] }),
    index('download_budgets_window_idx').on(t.windowStart),
  ],
)

// A chat app (an OAuth client) a person connected to their workspace. Its tokens are the OAuth
// library's, kept hashed in KV; KV is eventually consistent across locations, so this row, not
// KV, says whether the connection still stands: every token is checked against it, and revoking
// sets revoked_at here first. grant_id is the library's own id of the grant; scopes are the API's
// (`read`, `read,write`). expires_at moves forward on every refresh (an idle connection ends).
export const oauthGrants = sqliteTable(
  'oauth_grants',
  {
    grantId: text('grant_id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.userId, { onDelete: 'cascade' }),
    // Whom the OAuth library files the grant under, and so the first part of its tokens: a random
    // id of the grant's own, so that no token carries the person's id. Null for a grant made
    // before the column, which the library files under the user id (domain/oauth/grants.ts).
    subject: text('subject'),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.workspaceId, { onDelete: 'cascade' }),
    clientId: text('client_id').notNull(),
    clientName: text('client_name').notNull(),
    redirectUri: text('redirect_uri').notNull(),
    scopes: text('scopes').notNull(),
    // As a key's (api_keys.role): the person's role, kept with every change of it.
    role: roleColumn().notNull().default('owner'),
    createdAt: integer('created_at').notNull(),
    lastUsedAt: integer('last_used_at'),
    expiresAt: integer('expires_at').notNull(),
    revokedAt: integer('revoked_at'),
  },
  (t) => [
    index('oauth_grants_user_idx').on(t.userId, t.createdAt),
    index('oauth_grants_expires_idx').on(t.expiresAt),
  ],
)

// The secrets of a grant that work once (its authorization code, each refresh token), by SHA-256.
// The token endpoint claims one here, atomically, before the library sees it: a second use is
// known at once wherever it arrives, and ends the grant.
export const oauthSecrets = sqliteTable(
  'oauth_secrets',
  {
    secretHash: text('secret_hash').primaryKey(),
    grantId: text('grant_id')
      .notNull()
      .references(() => oauthGrants.grantId, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['code', 'refresh'] }).notNull(),
    createdAt: integer('created_at').notNull(),
    usedAt: integer('used_at'),
  },
  (t) => [index('oauth_secrets_grant_idx').on(t.grantId)],
)

// A workspace's webhooks (docs/comments-and-webhooks.md): where its events are sent, which ones,
// and the secret that signs them, encrypted under WEBHOOK_ENCRYPTION_KEY (it must be recovered to
// sign, so it cannot be hashed like an API key; encrypted, a copy of the database alone forges
// nothing). `events` is a JSON array of event types.
export const webhooks = sqliteTable(
  'webhooks',
  {
    webhookId: text('webhook_id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.workspaceId, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    events: text('events').notNull(),
    secret: text('secret').notNull(),
    createdAt: integer('created_at').notNull(),
    // The credential that made it (`key:<id>`, `grant:<id>`; NULL for a session), and whether the
    // events that credential causes are left out of what it is sent.
    createdBy: text('created_by'),
    excludeSelf: integer('exclude_self', { mode: 'boolean' }).notNull().default(false),
  },
  (t) => [index('webhooks_workspace_idx').on(t.workspaceId, t.createdAt)],
)

// One event sent to one webhook: the body as signed (every attempt sends the same bytes) and
// where its attempts stand. `attempts` counts attempts begun; `claimed_until` is set while one is
// under way (a lease: should the consumer die mid-attempt, the queue's redelivery takes it over
// once it lapses) and cleared when its outcome is recorded. `next_attempt_at` is when something
// is next due (the first attempt, a retry, or the end of a lease), NULL once delivered
// (`delivered_at`) or given up: the cron finds a delivery whose next step was lost by it alone.
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    webhookId: text('webhook_id')
      .notNull()
      .references(() => webhooks.webhookId, { onDelete: 'cascade' }),
    eventId: text('event_id').notNull(),
    type: text('type').notNull(),
    body: text('body').notNull(),
    attempts: integer('attempts').notNull().default(0),
    claimedUntil: integer('claimed_until'),
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    nextAttemptAt: integer('next_attempt_at'),
    deliveredAt: integer('delivered_at'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.webhookId, t.eventId] }),
    index('webhook_deliveries_created_idx').on(t.webhookId, t.createdAt),
    // Partial: only deliveries still under way are in it.
    index('webhook_deliveries_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`next_attempt_at IS NOT NULL`),
  ],
)

// Comments on a canvas (docs/comments-and-webhooks.md) and their replies, in one table: a reply
// names its comment in parent_id, and only a comment has a status. Stored WITHOUT ROWID
// (drizzle/0010) under the key (canvas_id, comment_id): a canvas's comments lie together, so
// listing them reads each row once, and every lookup names the canvas. `anchor` is the JSON the API
// takes (a text quote or a point), NULL for the canvas as a whole. `version` is the version the
// comment was made on; a reply's repeats its comment's. The author is kept as shown (a key's or
// app's name, an email, a visitor's chosen name) and its kind. No foreign key to canvases: the
// sweep, which alone removes canvases, removes their comments first, and a key would cost every
// canvas removed a read of this table (drizzle/0012).
export const comments = sqliteTable(
  'comments',
  {
    canvasId: text('canvas_id').notNull(),
    commentId: text('comment_id').notNull(),
    parentId: text('parent_id'),
    version: integer('version').notNull(),
    anchor: text('anchor'),
    body: text('body').notNull(),
    authorName: text('author_name').notNull(),
    authorKind: text('author_kind', { enum: ['member', 'agent', 'visitor'] }).notNull(),
    // The member who wrote it (null for a visitor, and for rows older than the column), and the
    // name a share link's readers are shown: a member's display name when written, never an email.
    authorUserId: text('author_user_id'),
    authorPublicName: text('author_public_name'),
    // The Idempotency-Key a comment or reply was posted with, with who sent it (hashed): the
    // same post sent twice (a double click, a retry) makes one comment (domain/comments/comments.ts).
    requestKey: text('request_key'),
    status: text('status', { enum: ['open', 'resolved'] }),
    createdAt: integer('created_at').notNull(),
    resolvedAt: integer('resolved_at'),
    // A comment's replies, kept by triggers like canvases.comment_count, for the same reason.
    replyCount: integer('reply_count').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.canvasId, t.commentId] }),
    // A comment's replies in their order. No foreign key to the comment: its check on each delete
    // would read the whole canvas's comments; a reply is only ever inserted from its comment's row
    // and deleted with it (domain/comments/comments.ts).
    index('comments_parent_idx').on(t.canvasId, t.parentId, t.createdAt),
    uniqueIndex('comments_request_key_idx')
      .on(t.canvasId, t.requestKey)
      .where(sql`request_key IS NOT NULL`),
  ],
)

// The audit log (docs/teams.md#the-audit-log): every change in a workspace, append-only (no route
// changes or deletes an event; the sweep removes those past AUDIT_RETENTION_DAYS). Each event is
// written in the same D1 batch as its change, so neither is kept without the other. `details` is
// a JSON object and never a secret. The workspace's index serves its pages newest first from a
// cursor at any depth; the target's, a filter by target and the sweep's question whether an
// expired canvas was deleted; the time index, the sweep's walk of old events.
export const auditEvents = sqliteTable(
  'audit_events',
  {
    eventId: text('event_id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.workspaceId, { onDelete: 'cascade' }),
    at: integer('at').notNull(),
    actorKind: text('actor_kind', {
      enum: ['member', 'key', 'agent', 'visitor', 'system'],
    }).notNull(),
    actorUserId: text('actor_user_id'),
    actorName: text('actor_name').notNull(),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id').notNull(),
    details: text('details').notNull(),
    // The person behind the actor, as they were named when it happened: a key's or an app's
    // event names its person too (their display name and email). Null for visitors, the system
    // and events written before it was kept.
    actorPersonName: text('actor_person_name'),
    actorEmail: text('actor_email'),
  },
  (t) => [
    // Its entries end in the rowid, the order events were written: ties of `at` break by it.
    index('audit_workspace_idx').on(t.workspaceId, t.at),
    index('audit_target_idx').on(t.workspaceId, t.targetId, t.action),
    index('audit_at_idx').on(t.at),
  ],
)

// What full-text search finds a canvas by (docs/api.md#search): its title and the text of its
// latest version, bounded (domain/search/text.ts), one row a canvas. The FTS5 index
// `canvas_search` is built over this table as its external content and kept in step with it by
// triggers, and this table with `canvases` by triggers (a new title, a removed canvas) and by the
// batch that makes each version (drizzle/0021_search.sql): one store, never a second to drift.
// The index's `workspace_id` column is matched in every query, so a search reads the postings of
// its own workspace only.
export const canvasTexts = sqliteTable(
  'canvas_texts',
  {
    id: integer('id').primaryKey(),
    canvasId: text('canvas_id').notNull().unique(),
    workspaceId: text('workspace_id').notNull(),
    title: text('title').notNull(),
    body: text('body').notNull(),
    // The body is still to be read from the canvas's files: a canvas published before search,
    // found by its title until the sweep or its workspace's next search reads its text.
    textPending: integer('text_pending', { mode: 'boolean' }).notNull().default(false),
  },
  (t) => [
    index('canvas_texts_pending_idx')
      .on(t.workspaceId)
      .where(sql`text_pending = 1`),
  ],
)

// Reviews of a canvas's versions: who asked, whom (`reviewers`, a JSON array of
// user ids; empty: any editor may decide), and the state their decisions made. No foreign key to
// the canvas: its check would cost the sweep a row read for every canvas it removes; the sweep
// removes a canvas's reviews itself. One pending review a version, held by the unique index.
export const reviews = sqliteTable(
  'reviews',
  {
    reviewId: text('review_id').primaryKey(),
    canvasId: text('canvas_id').notNull(),
    workspaceId: text('workspace_id').notNull(),
    version: integer('version').notNull(),
    state: text('state', { enum: ['pending', 'approved', 'changes_requested'] }).notNull(),
    requestedBy: text('requested_by').notNull(),
    reviewers: text('reviewers').notNull().default('[]'),
    note: text('note'),
    createdAt: integer('created_at').notNull(),
    decidedAt: integer('decided_at'),
  },
  (t) => [
    index('reviews_canvas_idx').on(t.canvasId, t.createdAt),
    uniqueIndex('reviews_pending_idx')
      .on(t.canvasId, t.version)
      .where(sql`state = 'pending'`),
    // A workspace's pending reviews, for the dashboard's marks of what awaits the person.
    index('reviews_workspace_pending_idx')
      .on(t.workspaceId, t.createdAt)
      .where(sql`state = 'pending'`),
  ],
)

// The decisions on a review, one a person: a named reviewer's or, when none was named, the
// member's who decided. A comment given with one is a comment on the version (`comment_id`).
export const reviewDecisions = sqliteTable(
  'review_decisions',
  {
    reviewId: text('review_id').notNull(),
    userId: text('user_id').notNull(),
    decision: text('decision', { enum: ['approve', 'request_changes'] }).notNull(),
    commentId: text('comment_id'),
    decidedAt: integer('decided_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.reviewId, t.userId] })],
)

// Readership (domain/views/): a canvas's reads by UTC day, counted by its Durable Object and added
// here in batches (live/view-tally.ts). `kind` is `day` (key ''), `version` (its number), `link`
// (the first characters of its token) or `denied` (a refused open of a link, by its reason);
// `readers` counts distinct readers of that day. No foreign
// key to the canvas, as for reviews: the sweep removes them with it.
export const canvasViews = sqliteTable(
  'canvas_views',
  {
    canvasId: text('canvas_id').notNull(),
    // Its canvas's workspace, for the workspace's most read canvases (by the index below).
    workspaceId: text('workspace_id').notNull().default(''),
    day: integer('day').notNull(),
    kind: text('kind', { enum: ['day', 'version', 'link', 'denied'] }).notNull(),
    key: text('key').notNull(),
    views: integer('views').notNull().default(0),
    readers: integer('readers').notNull().default(0),
    lastAt: integer('last_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.canvasId, t.day, t.kind, t.key] }),
    // The sweep removes the days past VIEW_RETENTION_DAYS by this index.
    index('canvas_views_day_idx').on(t.day),
    // A workspace's days of reads, each canvas's counts in the entry: its most read canvases of a
    // period are read from this index alone.
    index('canvas_views_workspace_idx').on(
      t.workspaceId,
      t.kind,
      t.day,
      t.canvasId,
      t.views,
      t.readers,
    ),
    // A canvas's reads by day alone, for the dashboard's week of each canvas listed: a canvas's
    // days are read without its versions' and links' rows between them.
    index('canvas_views_week_idx')
      .on(t.canvasId, t.day, t.views)
      .where(sql`kind = 'day'`),
    // A canvas's refused opens by day, for its page's Readers panel: few rows, read without the
    // others.
    index('canvas_views_denied_idx')
      .on(t.canvasId, t.day, t.key, t.views)
      .where(sql`kind = 'denied'`),
  ],
)

// Each member's last read of a canvas, and the version they read.
export const canvasMemberViews = sqliteTable(
  'canvas_member_views',
  {
    canvasId: text('canvas_id').notNull(),
    userId: text('user_id').notNull(),
    lastViewedAt: integer('last_viewed_at').notNull(),
    lastVersion: integer('last_version').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.canvasId, t.userId] }),
    // Who read a version, the most recent first: a canvas page names its latest's readers from a
    // few entries, however many members read it.
    index('canvas_member_views_version_idx').on(t.canvasId, t.lastVersion, t.lastViewedAt),
  ],
)
