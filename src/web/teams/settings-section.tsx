import type { Flash } from '../flash'
import { Csrf } from '../pages/layout'
import { flashAt, Notice } from '../pages/notice'

// The workspace's own settings on the Members page (admins), and deleting it (owners, never a
// personal workspace). The form posts what the API's PATCH takes, in a person's units.

export type SettingsView = {
  default_expires_in: string | null
  quota_bytes: number | null
  require_review: boolean
}

// Values as the API writes a duration (the largest whole unit: 24 hours is `1d`).
const LIVES: [string, string][] = [
  ['1h', '1 hour'],
  ['1d', '24 hours'],
  ['7d', '7 days'],
  ['30d', '30 days'],
  ['keep', 'Are kept until deleted'],
]

/** A life as the form names it ("7 days"), else as the API writes it. */
export const lifeWords = (value: string) => LIVES.find(([v]) => v === value)?.[1] ?? value

const MB = 1024 * 1024

type Props = {
  workspace: { name: string; role: string }
  personal: boolean
  settings: SettingsView
  csrf: string
  flash?: Flash
}

export function SettingsSection(props: Props) {
  const life = props.settings.default_expires_in ?? 'keep'
  const lives = LIVES.some(([value]) => value === life) ? LIVES : [[life, life], ...LIVES]
  const quota = props.settings.quota_bytes
  return (
    <>
      <h2 id="settings">Settings of this workspace</h2>
      <Notice flash={flashAt(props.flash, 'settings')} />
      <form class="panel row spaced" method="post" action="/settings/members/settings">
        <Csrf token={props.csrf} />
        <div>
          <label for="settings-name">Name</label>
          <input
            id="settings-name"
            name="name"
            required
            maxlength={100}
            value={props.workspace.name}
          />
        </div>
        <div>
          <label for="settings-life">New canvases</label>
          <select id="settings-life" name="default_expires_in">
            {lives.map(([value, words]) => (
              <option value={value} selected={value === life}>
                {value === 'keep' ? words : `Expire after ${words}`}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="settings-quota">Storage quota (MB)</label>
          <input
            id="settings-quota"
            name="quota_mb"
            type="number"
            min="1"
            step="1"
            placeholder="No limit"
            value={quota === null ? '' : String(Math.ceil(quota / MB))}
          />
        </div>
        <label class="check-row">
          <input
            type="checkbox"
            name="require_review"
            value="true"
            checked={props.settings.require_review}
            aria-describedby="settings-review-hint"
          />
          Readers see approved versions only
        </label>
        <button class="primary" type="submit">
          Save
        </button>
      </form>
      <p class="hint">
        A publish that asks to keep its canvas (<code>svc push --save</code>) or for a temporary one
        is followed. Uploads past the quota are refused until canvases are deleted or the quota is
        raised.
      </p>
      <p class="hint" id="settings-review-hint">
        With approved versions only, every share link and public page shows a canvas’s newest
        approved version, and nothing before a review approves one.
      </p>
      {props.workspace.role === 'owner' && !props.personal && (
        <details class="dialog">
          <summary class="btn small danger">Delete this workspace…</summary>
          <form class="row" method="post" action="/settings/members/delete">
            <Csrf token={props.csrf} />
            <div>
              <label for="delete-confirm">Type its name to confirm</label>
              <input id="delete-confirm" name="confirm" required autocomplete="off" />
            </div>
            <span class="hint">
              Every canvas, link, key, app and webhook in it goes, for every member. This cannot be
              undone.
            </span>
            <button class="small danger solid" type="submit">
              Delete it for everyone
            </button>
          </form>
        </details>
      )}
    </>
  )
}
