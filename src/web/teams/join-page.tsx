import { Layout, type User } from '../pages/layout'

/** A signed-in person's view of an invite: what they join, and one button. */
export function JoinPage(props: {
  user: User
  csrf: string
  token: string
  invite: { name: string; role: string; email: string | null }
}) {
  const { invite } = props
  return (
    <Layout title={`Join ${invite.name}`} user={props.user} csrf={props.csrf} main="narrow">
      <div class="panel">
        <h1>
          Join <bdi dir="auto">{invite.name}</bdi> as {invite.role}
        </h1>
        <p>
          You will see every canvas of the workspace
          {invite.role === 'viewer' ? ' and comment on them.' : ', and publish to it.'} Your own
          workspace stays as it is.
        </p>
        <form method="post" action={`/join/${props.token}`}>
          <input type="hidden" name="_csrf" value={props.csrf} />
          <button class="primary" type="submit">
            Join as {props.user.email}
          </button>
        </form>
      </div>
    </Layout>
  )
}
