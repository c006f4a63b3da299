import { Hono, type Context } from 'hono'
import { page } from '../../http/actor/steps'
import { MEMBER } from '../../http/actor/need'
import { params, parse } from '../../http/validate'
import type { AppEnv } from '../../http/context'
import type { Actor } from '../../domain/actor'
import { decideReview, decisionRefusal, requestReview } from '../../domain/reviews/reviews'
import type { Member, Review } from '../../schema/responses'
import { canvasInPath } from '../../schema/requests'
import { canvasReviewInPath, createReviewBody, decisionBody } from '../../schema/review-requests'
import { AppError } from '../../lib/errors'
import { ago } from '../../lib/time'
import { setFlash, type Flash } from '../flash'
import { forPeople } from '../people'
import { CHANGING } from '../needs'
import { Csrf, Layout, type User } from '../pages/layout'
import { flashAt, Notice } from '../pages/notice'
import { checkedForm, csrfToken, limitBySession, viewerOf, type FormEnv } from '../session'
import { findViewable } from '../../domain/canvases/reads'
import { listMembers } from '../../domain/workspaces/members'

// Reviews on the canvas's page (docs/reviews.md): asking for one (editors), and, for whom a
// review waits on, Approve and Request changes beside the changes since the approved version.

export const reviewForms = new Hono<AppEnv>()

reviewForms.get('/:id/review', page(CHANGING), params(canvasInPath), async (c) => {
  const { svc, session, actor } = c.var
  const view = await findViewable(svc, c.req.valid('param').id, session.workspace.workspace_id)
  if (!view?.isOwner) throw new AppError('canvas_not_found', 'canvas not found')
  const [members, csrf] = await Promise.all([listMembers(svc, actor), csrfToken(svc, session)])
  return c.html(
    <RequestReviewPage
      user={viewerOf(session)}
      csrf={csrf}
      canvas={view.canvas}
      versions={view.versions.map((v) => v.version)}
      members={members}
      actor={actor}
    />,
  )
})

reviewForms.post(
  '/:id/reviews',
  page(CHANGING),
  params(canvasInPath),
  limitBySession,
  checkedForm,
  (c) =>
    said(c, c.req.valid('param').id, async () => {
      const form = c.var.form
      const version = form.get('version')
      const note = form.get('note')?.trim()
      const input = parse(createReviewBody, {
        ...(version && { version: Number(version) }),
        reviewers: form.getAll('reviewers').filter(Boolean),
        ...(note && { note }),
      })
      const review = await requestReview(c.var.svc, c.var.actor, c.req.valid('param').id, input)
      const who =
        review.reviewers.length === 0
          ? 'any editor may approve it'
          : `${names(review.reviewers)} ${review.reviewers.length === 1 ? 'is' : 'are'} asked`
      return `Review of version ${review.version} requested: ${who}.`
    }),
)

reviewForms.post(
  '/:id/reviews/:review_id/decide',
  page(MEMBER),
  params(canvasReviewInPath),
  limitBySession,
  checkedForm,
  (c) =>
    said(c, c.req.valid('param').id, async () => {
      const form = c.var.form
      const comment = form.get('comment')?.trim()
      const input = parse(decisionBody, {
        decision: form.get('decision') ?? '',
        ...(comment && { comment }),
      })
      const { id, review_id } = c.req.valid('param')
      const review = await decideReview(c.var.svc, c.var.actor, review_id, input, id)
      if (review.state === 'approved') {
        return `Approved: version ${review.version} is what readers of approved links see now.`
      }
      if (review.state === 'changes_requested') {
        return `Changes requested on version ${review.version}: its author is told.`
      }
      return `Your approval is recorded; the review waits for the other reviewers.`
    }),
)

/** Runs a form's action and says what it did (or why not) under the page's Reviews heading. */
async function said(c: Context<FormEnv>, canvasId: string, action: () => Promise<string>) {
  let flash: Flash
  try {
    flash = { tone: 'ok', text: await action(), at: 'reviews' }
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err
    if (err.code === 'canvas_not_found') throw err
    flash = { tone: 'error', text: forPeople(err.message), at: 'reviews' }
  }
  await setFlash(c, flash)
  return c.redirect(`/c/${canvasId}#reviews`, 303)
}

const names = (people: { name: string }[]) => people.map((p) => p.name).join(', ')

const STATE: Record<Review['state'], string> = {
  pending: 'waiting for review',
  approved: 'approved',
  changes_requested: 'changes requested',
}

export type ReviewsProps = {
  canvasId: string
  csrf: string
  /** The canvas's reviews, newest first. */
  reviews: Review[]
  approvedVersion: number | null
  versions: number[]
  /** An editor may ask for a review (a viewer is shown no such control). */
  mayRequest: boolean
  actor: Pick<Actor, 'userId' | 'role'>
  flash?: Flash
}

/** The page's Reviews section: what waits on the person, the reviews, and asking for one. */
export function ReviewsSection(props: ReviewsProps) {
  const pending = props.reviews.filter((r) => r.state === 'pending')
  const mine = pending.filter((r) => mayDecide(props.actor, r))
  const recent = props.reviews.slice(0, 5)
  return (
    <section aria-labelledby="reviews">
      <h2 id="reviews">Reviews</h2>
      <Notice flash={flashAt(props.flash, 'reviews')} />
      {mine.map((r) => (
        <DecisionPanel review={r} {...props} />
      ))}
      <p class="muted">
        {props.approvedVersion === null
          ? 'No version is approved yet: links that show the approved version wait for one.'
          : `Readers of links that show the approved version see v${props.approvedVersion}.`}
      </p>
      {recent.length > 0 && (
        <ul class="plain-list">
          {recent.map((r) => (
            <li>
              <strong>v{r.version}</strong> · {STATE[r.state]} · asked by {r.requested_by.name}{' '}
              {ago(r.created_at)}
              {r.reviewers.length > 0 && <> · {reviewerWords(r)}</>}
            </li>
          ))}
        </ul>
      )}
      {props.mayRequest && (
        <p>
          <a class="btn" href={`/c/${props.canvasId}/review`}>
            Request review…
          </a>
        </p>
      )}
    </section>
  )
}

function reviewerWords(review: Review) {
  return review.reviewers
    .map((r) =>
      r.decision === 'approve'
        ? `${r.name} approved`
        : r.decision === 'request_changes'
          ? `${r.name} asked for changes`
          : `${r.name} has not decided`,
    )
    .join(', ')
}

const mayDecide = (actor: ReviewsProps['actor'], review: Review) =>
  review.state === 'pending' &&
  decisionRefusal(actor, review.requested_by.user_id, namedOf(review)) === null &&
  !review.reviewers.some((r) => r.user_id === actor.userId && r.decision !== null)

// A pending review lists its named reviewers only (decisions without a name end it at once).
const namedOf = (review: Review) => review.reviewers.map((r) => r.user_id)

/** Approve or Request changes, beside a link to the changes since the approved version. */
function DecisionPanel(props: ReviewsProps & { review: Review }) {
  const { review, canvasId } = props
  const since = props.approvedVersion ?? (review.version > 1 ? review.version - 1 : null)
  const id = `decide-${review.review_id}`
  return (
    <div class="panel spaced review-ask" role="group" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>
        {review.requested_by.name} asks for your review of v{review.version}
      </h3>
      {review.note && <p>{review.note}</p>}
      <p>
        <a href={`/c/${canvasId}?v=${review.version}`}>Show v{review.version}</a>
        {since !== null && since !== review.version && (
          <>
            {' · '}
            <a href={`/c/${canvasId}/diff?from=${since}&to=${review.version}`}>
              Changes since v{since}
              {props.approvedVersion === since ? ' (approved)' : ''}
            </a>
          </>
        )}
      </p>
      <form method="post" action={`/c/${canvasId}/reviews/${review.review_id}/decide`}>
        <Csrf token={props.csrf} />
        <label for={`${id}-comment`}>Comment (optional for an approval)</label>
        <textarea id={`${id}-comment`} name="comment" rows={2} maxlength={10000}></textarea>
        <div class="actions spaced">
          <button class="primary" type="submit" name="decision" value="approve">
            Approve
          </button>
          <button type="submit" name="decision" value="request_changes">
            Request changes
          </button>
        </div>
      </form>
    </div>
  )
}

/**
 * An editor's request, a page of its own (the canvas's page reads no member list): which version,
 * whom (any editor when none is ticked), and a note.
 */
export function RequestReviewPage(props: {
  user: User
  csrf: string
  canvas: { canvas_id: string; title: string }
  versions: number[]
  members: Member[]
  actor: Pick<Actor, 'userId'>
}) {
  const others = props.members.filter((m) => m.user_id !== props.actor.userId)
  const id = props.canvas.canvas_id
  return (
    <Layout title="Request review" user={props.user} csrf={props.csrf} main="narrow">
      <div class="panel">
        <h1>Request review of “{props.canvas.title}”</h1>
        <p class="hint">
          Links that show the approved version move to it once the review approves it; nothing
          changes for the others.
        </p>
        <form class="review-form" method="post" action={`/c/${id}/reviews`}>
          <Csrf token={props.csrf} />
          <label for="review-version">Version</label>
          <select id="review-version" name="version">
            {props.versions.map((v, i) => (
              <option value={String(v)} selected={i === 0}>
                v{v}
                {i === 0 ? ' (the latest)' : ''}
              </option>
            ))}
          </select>
          <fieldset>
            <legend>Reviewers</legend>
            {others.length === 0 && <p class="hint">No other member yet: invite one first.</p>}
            {others.map((m) => (
              <label class="check-row">
                <input type="checkbox" name="reviewers" value={m.user_id} />
                <span>
                  {m.email} <span class="muted">({m.role})</span>
                </span>
              </label>
            ))}
            <p class="hint">None ticked: any editor may approve.</p>
          </fieldset>
          <label for="review-note">Note</label>
          <textarea id="review-note" name="note" rows={2} maxlength={2000}></textarea>
          <div class="actions spaced">
            <button class="primary" type="submit">
              Request review
            </button>
            <a class="btn" href={`/c/${id}#reviews`}>
              Cancel
            </a>
          </div>
        </form>
      </div>
    </Layout>
  )
}
