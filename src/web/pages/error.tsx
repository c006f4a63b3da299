import { Layout, type User } from './layout'

/** Where the error page leads back to: the canvas it was about, or the app's home. */
export type Back = { href: string; label: string }

export function ErrorPage(props: {
  status: number
  title: string
  message: string
  user?: User | null
  back?: Back
}) {
  const back = props.back ?? {
    href: '/',
    label: props.user ? 'Back to your canvases' : 'Go to Canvas',
  }
  return (
    <Layout title={props.title} user={props.user}>
      <div class="panel empty">
        <h1>{props.title}</h1>
        <p>{props.message}</p>
        <p>
          <a class="btn primary" href={back.href}>
            {back.label}
          </a>
        </p>
      </div>
    </Layout>
  )
}
