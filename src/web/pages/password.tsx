import { Layout } from './layout'
import { FormError } from './notice'

/** A link's password form; it posts to `action`, the link's page or its full-page view. */
export function PasswordPage(props: { action: string; error?: string }) {
  return (
    <Layout
      title="Password required"
      main="narrow"
      og={{ title: 'Shared on Canvas', type: 'website' }}
    >
      <div class="panel">
        <h1>This link is password protected</h1>
        {props.error && <FormError>{props.error}</FormError>}
        <form method="post" action={props.action}>
          <label for="share-password">Password</label>
          <input id="share-password" name="password" type="password" required autocomplete="off" />
          <p>
            <button class="primary" type="submit">
              Open
            </button>
          </p>
        </form>
      </div>
    </Layout>
  )
}
