import { Csrf } from './layout'

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
 * always the latest, and a name of one's own. Opened at once when a try came back with an error.
 */
export function ShareDialog(props: {
  canvasId: string
  csrf: string
  versions: number[]
  draft?: ShareDraft
  open: boolean
}) {
  const values = props.draft?.values ?? {}
  return (
    <details class="dialog panel spaced" open={props.open || props.draft !== undefined}>
      <summary class="btn primary">New share link…</summary>
      {props.draft && (
        <div class="notice error" role="alert">
          {props.draft.error}
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
                  {label}
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
            <select id="share-version" name="version">
              <option value="">The latest version</option>
              {props.versions.map((v) => (
                <option value={String(v)} selected={values.version === String(v)}>
                  Only v{v}
                </option>
              ))}
            </select>
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
        <p>
          <button class="primary" type="submit">
            Create link
          </button>
        </p>
      </form>
    </details>
  )
}
