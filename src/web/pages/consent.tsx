import { Csrf, Layout, type User } from './layout'

export type ConsentView = {
  /** The app's name as it registered it (or as its metadata document says). */
  clientName: string
  /** The domain of an app whose client_id is its metadata document's URL: verified, unlike a name. */
  clientDomain?: string
  /** Where the access goes: the host of the redirect URI. */
  redirectHost: string
  /** The redirect goes to an app on this computer. */
  redirectIsLoopback: boolean
  /** What the app asked for: read and write, or read only; the person chooses either way. */
  write: boolean
  /** The person's workspaces, the one the access is for chosen among them. */
  workspaces: { workspace_id: string; name: string }[]
  /** The session's workspace: chosen unless the person picks another. */
  current: string
  /** A device sign-in's code (RFC 8628): access goes to the device showing it, not to a URL. */
  deviceCode?: string
}

/**
 * The authorize step: who asks, where the access goes, what it allows; Allow or Deny. The form
 * posts back to the same address, so the request it answers is the one shown.
 */
export function Consent(props: { user: User; csrf: string; action: string; view: ConsentView }) {
  const { view } = props
  return (
    <Layout title="Connect an app" user={props.user} csrf={props.csrf} main="narrow">
      <div class="panel">
        <h1>
          Allow <bdi dir="auto">{view.clientName}</bdi> to use your Canvas?
        </h1>
        <p>
          {view.clientDomain ? (
            <>
              Published by <strong>{view.clientDomain}</strong>.{' '}
            </>
          ) : (
            <>The app named itself; its name is not verified. </>
          )}
          {view.deviceCode ? (
            <>
              Access goes to the device that shows the code <strong>{view.deviceCode}</strong>:
              check that it does.
            </>
          ) : (
            <>
              Access will be sent to <strong>{view.redirectHost}</strong>.
            </>
          )}
        </p>
        {view.redirectIsLoopback && (
          <div class="notice error" role="alert">
            This sends access to an app on your computer. Continue only if you just started
            connecting from it.
          </div>
        )}
        <form method="post" action={props.action}>
          <Csrf token={props.csrf} />
          {view.deviceCode && <input type="hidden" name="user_code" value={view.deviceCode} />}
          {view.workspaces.length > 1 && (
            <>
              <label for="workspace">Workspace</label>
              <select id="workspace" name="workspace_id">
                {view.workspaces.map((w) => (
                  <option value={w.workspace_id} selected={w.workspace_id === view.current}>
                    {w.name}
                  </option>
                ))}
              </select>
            </>
          )}
          <fieldset class="choices">
            <legend>It will be able to</legend>
            {/* One span per choice: the label lays out its input and its words side by side. */}
            <label>
              <input type="radio" name="access" value="read" checked={!view.write} />
              <span>
                list and read canvases (<code>canvas:read</code>)
              </span>
            </label>
            <label>
              <input type="radio" name="access" value="write" checked={view.write} />
              <span>
                also publish, change, share and delete them (<code>canvas:write</code>)
              </span>
            </label>
          </fieldset>
          <p class="muted">
            You can {view.deviceCode ? 'revoke its key' : 'disconnect it'} at any time in{' '}
            <a href="/settings">Settings</a>.
          </p>
          <p class="row">
            <button class="primary" type="submit" name="decision" value="approve">
              Allow
            </button>
            <button type="submit" name="decision" value="deny">
              Deny
            </button>
          </p>
        </form>
      </div>
    </Layout>
  )
}
