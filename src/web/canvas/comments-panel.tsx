import type { Comment } from '../../schema/responses'
import { ago, calendar } from '../../lib/time'

// The comments beside a viewer's content (docs/web.md). Rendered here as a
// readable list, so that a page without JavaScript shows them; the page's script (assets/
// comments.ts) takes it over: it renders the bodies as Markdown, adds the form and the actions,
// and keeps the list live. Beside the content on a wide screen, a drawer on a phone, opened by the
// bar's button (its link to #comments opens it without the script too).

export type CommentsProps = {
  /** The JSON routes of the page's script: `/c/:id/comments` or `/s/:token/comments`. */
  base: string
  comments: Comment[]
  /** The version shown: a comment made on another says which. */
  shown: number
  /** A member's page (a visitor gives a name). */
  owner: boolean
  /** Whether the person may resolve, reopen and delete (a member whose role changes canvases). */
  moderate?: boolean
  csrf?: string
}

const KINDS: Record<string, string> = { owner: 'owner', agent: 'agent', visitor: 'visitor' }

/** The comments still open, which the bar's button counts. */
export const openCount = (comments: Comment[]) => comments.filter((c) => c.status === 'open').length

/** The bar's button that opens the panel, with the number of open comments. */
export function CommentsButton({ count }: { count: number }) {
  return (
    <a class="btn comments-button" href="#comments" data-comments-toggle aria-controls="comments">
      <svg aria-hidden="true" width="16" height="16" viewBox="0 0 16 16">
        <path
          fill="currentColor"
          d="M2 3.5A1.5 1.5 0 0 1 3.5 2h9A1.5 1.5 0 0 1 14 3.5v6a1.5 1.5 0 0 1-1.5 1.5H8l-3 3v-3H3.5A1.5 1.5 0 0 1 2 9.5z"
        />
      </svg>
      {/* Read out on a phone too, where only the number shows. */}
      <span class="label">Comments</span>
      <span class="count" data-comments-count>
        {count}
      </span>
    </a>
  )
}

export function CommentsPanel(props: CommentsProps) {
  return (
    <aside
      id="comments"
      class="comments"
      aria-labelledby="comments-title"
      data-comments={props.base}
      data-shown={String(props.shown)}
      data-owner={props.owner ? true : undefined}
      data-moderate={props.moderate ? true : undefined}
      data-csrf={props.csrf}
    >
      <div class="comments-head">
        <h2 id="comments-title">Comments</h2>
        <label class="check" hidden data-comments-resolved-label>
          <input type="checkbox" data-comments-resolved /> Show resolved
        </label>
        <a class="btn close phone-only" href="#" data-comments-close aria-label="Close comments">
          ✕
        </a>
      </div>
      <div class="comments-body">
        <ol class="comment-list" data-comments-list>
          {props.comments.map((comment) => (
            <CommentItem comment={comment} shown={props.shown} />
          ))}
        </ol>
        <p class="muted comments-empty" data-comments-empty hidden={props.comments.length > 0}>
          No comments yet.
        </p>
      </div>
      <noscript>
        <p class="muted comments-foot">Turn on JavaScript to comment.</p>
      </noscript>
    </aside>
  )
}

function CommentItem({ comment, shown }: { comment: Comment; shown: number }) {
  const quote = comment.anchor && 'quote' in comment.anchor ? comment.anchor.quote.exact : null
  const thread = (
    <>
      {comment.version !== shown && <span class="chip">v{comment.version}</span>}
      {quote && <blockquote class="quote">{quote}</blockquote>}
      <div class="body plain">{comment.body}</div>
      {comment.replies.length > 0 && (
        <ol class="replies">
          {comment.replies.map((reply) => (
            <li class="reply">
              <Byline author={reply.author} at={reply.created_at} />
              <div class="body plain">{reply.body}</div>
            </li>
          ))}
        </ol>
      )}
    </>
  )
  if (comment.status !== 'resolved') {
    return (
      <li class="comment" data-comment-id={comment.comment_id}>
        <Byline author={comment.author} at={comment.created_at} />
        {thread}
      </li>
    )
  }
  // Folded, its answer one click away; the page's script draws it the same way.
  const n = comment.replies.length
  return (
    <li class="comment resolved" data-comment-id={comment.comment_id}>
      <Byline author={comment.author} at={comment.created_at} />
      <details>
        <summary>Resolved{n > 0 ? ` · ${n === 1 ? '1 reply' : `${n} replies`}` : ''}</summary>
        {thread}
      </details>
    </li>
  )
}

function Byline(props: { author: Comment['author']; at: string }) {
  return (
    <p class="byline">
      <strong class="who">
        <bdi dir="auto">{props.author.name}</bdi>
      </strong>
      <span class="chip">{KINDS[props.author.kind] ?? props.author.kind}</span>
      <time datetime={props.at} title={calendar(props.at)}>
        {ago(props.at)}
      </time>
    </p>
  )
}
