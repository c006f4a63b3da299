// What a canvas's open viewers are told (docs/web.md): the Worker's writes send these
// through the canvas's Durable Object, which passes them to the pages' WebSockets.

export type LiveEvent =
  | { type: 'version'; version: number }
  // A comment made, replied to, resolved, reopened or with a reply deleted: the whole thread as
  // it now stands (the API's comment object), sent only to sockets that may read comments.
  | { type: 'comment'; comment: { comment_id: string } & Record<string, unknown> }
  | { type: 'comment_deleted'; comment_id: string }
  | { type: 'gone'; reason: 'deleted' | 'private' | 'revoked' | 'expired' | 'signed_out' }

/** Why a socket's access ended. */
export type GoneReason = Extract<LiveEvent, { type: 'gone' }>['reason']

/**
 * The close code of each reason, of the private range (4000-4999): the object closes a socket
 * with it, and the page tells the reasons apart by it when the `gone` message was missed.
 */
export const LIVE_CLOSE_CODES: Record<GoneReason, number> = {
  deleted: 4001,
  private: 4002,
  revoked: 4003,
  expired: 4004,
  signed_out: 4005,
}

/**
 * What the Worker's writes tell a canvas's object: an event for its viewers, or that the canvas no
 * longer expires (made permanent), which its viewers need not hear: their sockets simply stop
 * expiring with it.
 */
export type LiveNotice =
  | LiveEvent
  | { type: 'permanent' }
  // A version was approved: the sockets that follow approval hear it as their new `version`, and
  // only they (docs/reviews.md); they hear of no version pushed.
  | { type: 'approved'; version: number }
  // A review of the canvas was decided: it wakes those waiting on the canvas (an agent's wait for
  // the review); no page hears it.
  | { type: 'review'; review_id: string }
  // Its workspace began or stopped requiring review: the sockets of its links' readers and
  // public visitors close, and their pages open them again under the setting (their version,
  // and the comments they hear).
  | { type: 'reconnect' }

/**
 * Who an event is for, by the tags a socket was accepted with: everyone, the visitors of a public
 * canvas, the readers of any share link, or of one, or whoever may read the canvas's comments (its
 * owner, and readers of a link that allows comments), or of those the members alone, or the
 * link's readers alone (who are shown people's names as visitors are: never an email).
 */
export type LiveAudience =
  | 'all'
  | 'public'
  | 'share'
  | `share:${string}`
  | 'comments'
  | 'comments:member'
  | 'comments:visitor'

/** Tells a canvas's open viewers what changed, after the write; it never fails the write. */
export type LiveNotifier = (canvasId: string, notice: LiveNotice, audience?: LiveAudience) => void

/**
 * A live socket opened, or a wait begun, on a canvas under a person's credential: the tags it was
 * accepted with (`person:<user id>`, and `session:`, `key:` or `grant:` with the credential's id).
 */
export type Watch = { canvasId: string; workspaceId: string; tags: string[] }

/**
 * Which of a person's credentials ended: every one in a workspace (they were removed from it),
 * one by its tag (a logout, a key revoked, an app disconnected), or all their sessions.
 */
export type AccessEnd = { workspaceId: string } | { tag: string } | { sessions: true }

/**
 * A person's credentials that end reach everything they opened: their live sockets close, their
 * waits end. `watch` records a socket or a wait; `end` returns once what it ends is gone.
 */
export type AccessWatch = {
  watch: (userId: string, watch: Watch) => Promise<void>
  end: (userId: string, end: AccessEnd) => Promise<void>
}

/** The longest an agent's wait for comments holds its request, in seconds. */
export const MAX_WAIT_SECONDS = 60

/**
 * Waits, through the canvas's Durable Object, until one of its comments changes (`comment`; at
 * once when one did after `sinceMs`), `timeoutMs` passes (`timeout`), or the credential of the
 * waiter, by its `tags`, ends (`ended`).
 */
export type CommentWaiter = (
  canvasId: string,
  sinceMs: number,
  timeoutMs: number,
  tags: string[],
) => Promise<WaitOutcome>

export type WaitOutcome = 'comment' | 'timeout' | 'ended'

/**
 * The headers in which the Worker tells a canvas's object what it checked of a socket: its tags
 * (the access it was opened under), the canvas's current version, when the canvas and the share
 * link expire (milliseconds since the epoch; absent, never), as the socket then ends, and the
 * version a pinned link shows. Here
 * rather than beside the object, so the routes do not import the runtime's Durable Object class
 * (Node builds the app for its OpenAPI document).
 */
export const LIVE_TAGS_HEADER = 'X-Live-Tags'
export const LIVE_VERSION_HEADER = 'X-Live-Version'
export const LIVE_CANVAS_EXPIRES_HEADER = 'X-Live-Canvas-Expires'
export const LIVE_LINK_EXPIRES_HEADER = 'X-Live-Link-Expires'
/** A link pinned to a version: the newest version whose comments its socket hears (absent: any). */
export const LIVE_UP_TO_HEADER = 'X-Live-Up-To'
/** The socket shows the approved version: present (`1`) for a link or page that follows approval. */
export const LIVE_APPROVED_HEADER = 'X-Live-Approved'
