import { calendar, relative } from '../../lib/time'
import { Action } from '../pages/action'
import { Csrf } from '../pages/layout'
import { FormError } from '../pages/notice'

/** A share form that came back: what was typed, why it was refused, and the status to answer. */
export type ShareDraft = { values: Record<string, string>; error: string; status: 400 | 404 | 409 }

const LIFETIMES = [
  ['', 'Never'],
  ['1h', '1 hour'],
  ['24h', '24 hours'],
  ['7d', '7 days'],
  ['30d', '30 days'],
  ['90d', '90 days'],
  ['365d', '1 year'],
]

/**
 * A new share link with every option a link has: lifetime, password, view limit, one version or
 * always the latest, a name of one's own, and whether its readers may comment. Shown open when the canvas has no link yet or a try
 * came back with an error; otherwise behind its button, which goes once the form is open (a
 * button that would fold away a form half filled in is a trap).
 */
export function ShareDialog(props: {
  canvasId: string
  csrf: string
  versions: number[]
  draft?: ShareDraft
  open: boolean
  /** The canvas's own expiry: a temporary canvas ends its links with it. */
  canvasExpiresAt: string | null
}) {
  const form = <ShareForm {...props} />
  if (props.open || props.draft) {
    return (
      <section class="panel spaced" aria-labelledby="new-share">
        <h3 id="new-share">New share link</h3>
        {form}
      </section>
    )
  }
  return (
    <details class="dialog panel spaced">
      <summary class="btn primary">New share link…</summary>
      <h3>New share link</h3>
      {form}
    </details>
  )
}

function ShareForm(props: {
  canvasId: string
  csrf: string
  versions: number[]
  draft?: ShareDraft
  canvasExpiresAt: string | null
}) {
  const values = props.draft?.values ?? {}
  const ends = props.canvasExpiresAt
  return (
    <>
      {props.draft && <FormError>{props.draft.error}</FormError>}
      {ends && (
        <div class="row">
          <p class="hint">
            This canvas expires {relative(ends)} ({calendar(ends)}), and its links with it, whatever
            they say.
          </p>
          <Action
            csrf={props.csrf}
            action={`/c/${props.canvasId}/permanent`}
            label="Make permanent"
          />
        </div>
      )}
      <form method="post" action={`/c/${props.canvasId}/share`}>
        <Csrf token={props.csrf} />
        <div class="grid">
          <div>
            <label for="share-expires">Expires after</label>
            <select id="share-expires" name="expires_in">
              {LIFETIMES.map(([value, label]) => (
                <option value={value} selected={values.expires_in === value}>
                  {value === '' && ends ? 'When the canvas expires' : label}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="share-max-views">View limit</label>
            <input
              id="share-max-views"
              name="max_views"
              type="number"
              min={1}
              max={1000000}
              placeholder="No limit"
              value={values.max_views ?? ''}
            />
          </div>
          <div>
            <label for="share-version">Shows</label>
            <ShareVersions versions={props.versions} selected={values.version} />
          </div>
          <div>
            <label for="share-password">Password</label>
            <input
              id="share-password"
              name="password"
              type="password"
              minlength={4}
              maxlength={256}
              autocomplete="new-password"
              placeholder="None"
            />
          </div>
        </div>
        <label for="share-token">Link name</label>
        <input
          id="share-token"
          name="token"
          pattern="[A-Za-z0-9_\-]{8,64}"
          placeholder="Random"
          value={values.token ?? ''}
          aria-describedby="share-token-hint"
        />
        <p class="hint" id="share-token-hint">
          Optional: 8 to 64 letters, digits, - or _. A password needs 4 characters or more.
        </p>
        <label class="check-row">
          <input
            type="checkbox"
            name="allow_comments"
            value="true"
            checked={values.allow_comments === 'true'}
            aria-describedby="share-comments-hint"
          />
          Allow comments
        </label>
        <p class="hint" id="share-comments-hint">
          Whoever opens the link can read the comments and add their own under a name they choose.
        </p>
        <div class="actions spaced">
          <button class="primary" type="submit">
            Create link
          </button>
          <button type="button" data-close-dialog hidden>
            Cancel
          </button>
        </div>
      </form>
    </>
  )
}

/** The form's choice of a version; the owner's page refreshes it when a version lands. */
export function ShareVersions(props: { versions: number[]; selected?: string }) {
  return (
    <select id="share-version" name="version" data-live-part="share-version">
      <option value="">The latest version</option>
      <option value="approved" selected={props.selected === 'approved'}>
        The approved version
      </option>
      {props.versions.map((v) => (
        <option value={String(v)} selected={props.selected === String(v)}>
          Only v{v}
        </option>
      ))}
    </select>
  )
}
