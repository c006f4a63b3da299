// What live.ts hands the comments panel: the socket's comment events, as the canvas's Durable
// Object sent them, dispatched on the document.
import type { Comment } from '../../src/schema/responses'

export type CommentEvent =
  { type: 'comment'; comment: Comment } | { type: 'comment_deleted'; comment_id: string }

export const COMMENT_EVENT = 'canvas:comment'

/** A comment id as the API makes them: anything else is not acted on. */
export const ID = /^[A-Za-z0-9_-]{1,64}$/
