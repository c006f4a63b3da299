import { MIN_PASSWORD_LENGTH } from '../../schema/account-requests'
import { WHAT_CANVAS_IS } from './landing'
import { Layout } from './layout'
import { FormError } from './notice'

/** How a person may sign in here: a provider's button (its name), and passwords. */
export type SignInWays = { sso: string | null; access: boolean; password: boolean }

const PASSWORDS_ONLY: SignInWays = { sso: null, access: false, password: true }

export function AuthPage(props: {
  mode: 'login' | 'signup'
  ways?: SignInWays
  error?: string
  email?: string
  next?: string
  /** Signup when this server takes no new accounts: said at once, with no form to fill in. */
  closed?: boolean
  /** The first account's setup token, from the setup link, carried to the form's post. */
  setupToken?: string
  /** An invite the signup joins (its link's page): admitted even when signup is closed. */
  invite?: { token: string; name: string; role: string; email: string | null }
}) {
  const login = props.mode === 'login'
  const invite = login ? undefined : props.invite
  const given = props.ways ?? PASSWORDS_ONLY
  // Signup closed to passwords is still open to the team's identity provider.
  const passwordClosed = !login && props.closed && !invite
  if (passwordClosed && !given.sso) return <SignupClosed />
  const heading = login ? 'Log in to Canvas' : 'Create your Canvas account'
  const ways = passwordClosed ? { ...given, password: false } : given
  const back = invite ? `/join/${invite.token}` : props.next
  const ssoHref = `/auth/oidc${back ? `?next=${encodeURIComponent(back)}` : ''}`
  return (
    <Layout title={login ? 'Log in' : 'Sign up'} main="narrow">
      <div class="panel">
        <h1>
          {invite ? (
            <>
              Join <bdi dir="auto">{invite.name}</bdi> as {invite.role}
            </>
          ) : (
            heading
          )}
        </h1>
        <p class="muted">
          {invite
            ? `Create your account to join: you will see the team's canvases at once${invite.role === 'viewer' ? ' and comment on them' : ', and publish with it'}.`
            : WHAT_CANVAS_IS}
        </p>
        {props.error && <FormError>{props.error}</FormError>}
        {ways.sso && (
          <p>
            <a class="btn primary wide" href={ssoHref}>
              Continue with {ways.sso}
            </a>
          </p>
        )}
        {!ways.password && !ways.sso && (
          <p>
            {ways.access
              ? 'This server signs people in through Cloudflare Access: open it at your team’s address.'
              : 'Password sign-in is off on this server.'}
          </p>
        )}
        {ways.password && ways.sso && <p class="muted or">or with a password</p>}
        {ways.password && (
          <form method="post" action={login ? '/login' : '/signup'}>
            {props.next && <input type="hidden" name="next" value={props.next} />}
            {props.setupToken && (
              <input type="hidden" name="setup_token" value={props.setupToken} />
            )}
            {invite && <input type="hidden" name="invite" value={invite.token} />}
            <label for="email">Email</label>
            <input
              id="email"
              name="email"
              type="email"
              required
              autocomplete="email"
              value={props.email ?? invite?.email ?? ''}
            />
            <label for="password">Password</label>
            <input
              id="password"
              name="password"
              type="password"
              required
              minlength={login ? undefined : MIN_PASSWORD_LENGTH}
              autocomplete={login ? 'current-password' : 'new-password'}
              aria-describedby={login ? undefined : 'password-hint'}
            />
            {!login && (
              <p class="hint" id="password-hint">
                At least {MIN_PASSWORD_LENGTH} characters.
              </p>
            )}
            <p>
              {/* With a provider offered, its button is the page's first way in. */}
              <button class={ways.sso ? undefined : 'primary'} type="submit">
                {login ? 'Log in' : invite ? 'Sign up and join' : 'Sign up'}
              </button>
            </p>
          </form>
        )}
        {ways.password && !(login && props.closed) && (
          <p class="muted">
            {login ? (
              <a class="btn" href="/signup">
                Create an account
              </a>
            ) : (
              <a
                class="btn"
                href={
                  invite ? `/login?next=${encodeURIComponent(`/join/${invite.token}`)}` : '/login'
                }
              >
                I have an account
              </a>
            )}
          </p>
        )}
      </div>
    </Layout>
  )
}

function SignupClosed() {
  return (
    <Layout title="Sign up" main="narrow">
      <div class="panel">
        <h1>Signup is closed</h1>
        <p>This Canvas server takes no new accounts. Ask the person who runs it for one.</p>
        <p>
          <a href="/login">Log in</a> if you have an account.
        </p>
      </div>
    </Layout>
  )
}

/** A fresh deployment reached without its setup link: nobody may take it by finding it first. */
export function SetupNeeded() {
  return (
    <Layout title="Set up" main="narrow">
      <div class="panel">
        <h1>This Canvas is not set up yet</h1>
        <p>
          Its first account is created from the one-time setup link that <code>npm run deploy</code>{' '}
          printed when it deployed this server. Open that link to create it.
        </p>
        <p class="muted">
          Lost the link? Set a new <code>SETUP_TOKEN</code> secret (
          <code>npx wrangler secret put SETUP_TOKEN</code>) and open{' '}
          <code>/signup?setup=&lt;token&gt;</code>.
        </p>
      </div>
    </Layout>
  )
}
