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
  write: boolean
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
          Access will be sent to <strong>{view.redirectHost}</strong>.
        </p>
        {view.redirectIsLoopback && (
          <div class="notice error" role="alert">
            This sends access to an app on your computer. Continue only if you just started
            connecting from it.
          </div>
        )}
        <p>It will be able to:</p>
        <ul>
          <li>
            list and read your canvases (<code>canvas:read</code>)
          </li>
          {view.write && (
            <li>
              publish, change, share and delete canvases (<code>canvas:write</code>)
            </li>
          )}
        </ul>
        <p class="muted">
          You can disconnect it at any time in <a href="/settings">Settings</a>.
        </p>
        <form class="row" method="post" action={props.action}>
          <Csrf token={props.csrf} />
          <button class="primary" type="submit" name="decision" value="approve">
            Allow
          </button>
          <button type="submit" name="decision" value="deny">
            Deny
          </button>
        </form>
      </div>
    </Layout>
  )
}
