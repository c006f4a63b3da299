import { Layout, type User } from './layout'

export function ErrorPage(props: {
  status: number
  title: string
  message: string
  user?: User | null
}) {
  return (
    <Layout title={props.title} user={props.user}>
      <div class="panel empty">
        <h1>{props.title}</h1>
        <p>{props.message}</p>
        <p>
          <a href="/">Back to Canvas</a>
        </p>
      </div>
    </Layout>
  )
}
