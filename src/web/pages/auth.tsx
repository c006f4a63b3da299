import { Layout } from './layout'

export function AuthPage(props: {
  mode: 'login' | 'signup'
  error?: string
  email?: string
  next?: string
}) {
  const login = props.mode === 'login'
  return (
    <Layout title={login ? 'Log in' : 'Sign up'} main="narrow">
      <div class="panel">
        <h1>{login ? 'Log in to Canvas' : 'Create your Canvas account'}</h1>
        {props.error && (
          <div class="error" role="alert">
            {props.error}
          </div>
        )}
        <form method="post" action={login ? '/login' : '/signup'}>
          {props.next && <input type="hidden" name="next" value={props.next} />}
          <label for="email">Email</label>
          <input
            id="email"
            name="email"
            type="email"
            required
            autocomplete="email"
            value={props.email ?? ''}
          />
          <label for="password">Password</label>
          <input
            id="password"
            name="password"
            type="password"
            required
            minlength={login ? undefined : 8}
            autocomplete={login ? 'current-password' : 'new-password'}
          />
          <p>
            <button class="primary" type="submit">
              {login ? 'Log in' : 'Sign up'}
            </button>
          </p>
        </form>
        <p class="muted">
          {login ? <a href="/signup">Create an account</a> : <a href="/login">I have an account</a>}
        </p>
      </div>
    </Layout>
  )
}
