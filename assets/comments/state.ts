// What the comments panel knows, apart from how it is drawn: the comments, the replies being
// written, what is shown, and what the next comment will be anchored to.
import type { CommentAnchor } from '../../src/schema/requests'
import type { Comment } from '../../src/schema/responses'

export type Anchor = CommentAnchor | null

/** A reply being written: its text, the key it is posted with, whether it is on its way. */
export type Draft = { text: string; key: string; sending: boolean }

export type State = {
  comments: Map<string, Comment>
  /** Replies being written, by comment: they outlive the list being drawn again. */
  drafts: Map<string, Draft>
  showResolved: boolean
  /** Resolved threads unfolded: one is drawn folded, its question and the way to its answer. */
  unfolded: Set<string>
  /** Which comments the frame shows in place; null until it says. */
  placed: Set<string> | null
  anchor: Anchor
  pointMode: boolean
  active: string | null
}

/** A link's readers see resolved threads (folded): their question was answered there. */
export const newState = (owner: boolean): State => ({
  comments: new Map(),
  drafts: new Map(),
  showResolved: !owner,
  unfolded: new Set(),
  placed: null,
  anchor: null,
  pointMode: false,
  active: null,
})

/** The comments the list shows, oldest first. */
export const visible = (state: State) =>
  [...state.comments.values()]
    .filter((c) => state.showResolved || c.status === 'open')
    .sort((a, b) => a.created_at.localeCompare(b.created_at))

export const openCount = (state: State) =>
  [...state.comments.values()].filter((c) => c.status === 'open').length
