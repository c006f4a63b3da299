import { Csrf, Layout, type User } from '../pages/layout'

export function ConfirmDelete(props: {
  user: User
  csrf: string
  canvas: { canvas_id: string; title: string }
}) {
  return (
    <Layout title="Delete canvas" user={props.user} csrf={props.csrf} main="narrow">
      <div class="panel">
        <h1>Delete “{props.canvas.title}”?</h1>
        <p>All of its versions and share links go with it. This cannot be undone.</p>
        <form method="post" action={`/c/${props.canvas.canvas_id}/delete`} class="row">
          <Csrf token={props.csrf} />
          <button class="danger solid" type="submit">
            Delete for good
          </button>
          <a class="btn" href={`/c/${props.canvas.canvas_id}`}>
            Cancel
          </a>
        </form>
      </div>
    </Layout>
  )
}
