import { raw } from 'hono/html'
import type { Child } from 'hono/jsx'
import { APP_CSS, APP_JS } from '../asset-urls'

export type User = { email: string }

type LayoutProps = {
  title: string
  user?: { email: string } | null
  csrf?: string
  main?: 'narrow' | 'wide' | 'normal'
  /** The app's header; wide pages (the viewer) go without unless they ask for it. */
  header?: boolean
  /** Shared and public pages: Open Graph tags and noindex. */
  og?: { title: string; type: string }
  children: Child
}

export function Layout(props: LayoutProps) {
  const { title, user, csrf, main = 'normal', og, children } = props
  const header = props.header ?? main !== 'wide'
  // The doctype keeps browsers out of quirks mode (where forms get a bottom margin, among others).
  return (
    <>
      {raw('<!DOCTYPE html>')}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width,initial-scale=1" />
          <title>{title} · Canvas</title>
          <link rel="stylesheet" href={APP_CSS} />
          {og && <meta name="robots" content="noindex, nofollow" />}
          {og && <meta property="og:title" content={og.title} />}
          {og && <meta property="og:type" content={og.type} />}
          {og && <meta property="og:site_name" content="Canvas" />}
          <script src={APP_JS} defer></script>
        </head>
        <body>
          {header && (
            <header class="top">
              <a class="brand" href="/">
                Canvas
              </a>
              <nav>
                {user ? (
                  <>
                    <a href="/">Canvases</a>
                    <a href="/settings">Settings</a>
                    <span class="muted who">{user.email}</span>
                    <form class="inline" method="post" action="/logout">
                      <input type="hidden" name="_csrf" value={csrf ?? ''} />
                      <button type="submit">Log out</button>
                    </form>
                  </>
                ) : (
                  <a href="/login">Log in</a>
                )}
              </nav>
            </header>
          )}
          <main class={main === 'normal' ? '' : main}>{children}</main>
        </body>
      </html>
    </>
  )
}

export function Csrf({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />
}
