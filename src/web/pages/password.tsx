import { Layout } from './layout'

export function PasswordPage(props: { token: string; error?: string }) {
  return (
    <Layout
      title="Password required"
      main="narrow"
      og={{ title: 'Shared on Canvas', type: 'website' }}
    >
      <div class="panel">
        <h1>This link is password protected</h1>
        {props.error && (
          <div class="notice error" role="alert">
            {props.error}
          </div>
        )}
        <form method="post" action={`/s/${props.token}`}>
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
