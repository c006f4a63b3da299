import { Layout } from './layout'

/**
 * A link with a view limit, before it is opened: what it shows and how many views it has left.
 * Fetching this page uses none (link previews and mail scanners fetch it); the button does.
 */
export function OpenSharePage(props: {
  /** Where the Open button posts: the link's page, or its full-page view. */
  action: string
  title: string
  viewsLeft: number
  facts: string[]
}) {
  const views = props.viewsLeft === 1 ? '1 view' : `${props.viewsLeft} views`
  return (
    <Layout title={props.title} main="narrow" og={{ title: props.title, type: 'article' }}>
      <div class="panel">
        <h1>{props.title}</h1>
        <p>
          This link opens a limited number of times: it has {views} left, and opening it uses one.
        </p>
        <p class="muted">{props.facts.join(' · ')}</p>
        <form method="post" action={props.action}>
          <input type="hidden" name="open" value="1" />
          <button class="primary" type="submit" autofocus>
            Open
          </button>
        </form>
      </div>
    </Layout>
  )
}
