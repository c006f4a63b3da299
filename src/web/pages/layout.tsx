import { raw } from 'hono/html'
import type { Child } from 'hono/jsx'
import { APP_CSS, APP_JS } from '../asset-urls'
import { FAVICON_PATH } from '../../lib/brand'
import { Logo } from './logo'

/** Who is looking, and the workspace their session acts in (the header names it). */
export type User = { email: string; workspace?: { name: string; role: string } }

type LayoutProps = {
  title: string
  user?: User | null
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
          <link rel="icon" href={FAVICON_PATH} type="image/svg+xml" />
          <link rel="stylesheet" href={APP_CSS} />
          {og && <meta name="robots" content="noindex, nofollow" />}
          {og && <meta property="og:title" content={og.title} />}
          {og && <meta property="og:type" content={og.type} />}
          {og && <meta property="og:site_name" content="Canvas" />}
          <script src={APP_JS} defer></script>
        </head>
        <body>
          {header && <Header user={user} csrf={csrf} />}
          <main class={main === 'normal' ? '' : main}>{children}</main>
        </body>
      </html>
    </>
  )
}

/**
 * One row at every width: the brand, then the signed-in person's places. On a phone they fold
 * into one menu, so the page's own content starts right below.
 */
function Header({ user, csrf }: { user?: User | null; csrf?: string }) {
  return (
    <header class="top">
      <a class="brand" href="/">
        <Logo />
        Canvas
      </a>
      {user ? (
        <>
          <nav class="wide-only" aria-label="Account">
            <a href="/">Canvases</a>
            {user.workspace ? (
              <WorkspaceMenu workspace={user.workspace} />
            ) : (
              <a href="/settings/members">Members</a>
            )}
            <a href="/settings">Settings</a>
            <a href="/docs/readme">Docs</a>
            <span class="muted who" title={user.email}>
              {user.email}
            </span>
            <LogOut csrf={csrf} />
          </nav>
          <details class="menu phone-only">
            <summary class="btn" aria-label="Menu">
              Menu
            </summary>
            <div class="items">
              <p class="muted who">{user.email}</p>
              {user.workspace && (
                <p class="muted">
                  Workspace: <bdi dir="auto">{user.workspace.name}</bdi>
                </p>
              )}
              <a class="btn" href="/">
                Canvases
              </a>
              <a class="btn" href="/settings/members">
                Members
              </a>
              {user.workspace && <WorkspaceLinks workspace={user.workspace} />}
              <a class="btn" href="/settings">
                Settings
              </a>
              <a class="btn" href="/docs/readme">
                Docs
              </a>
              <LogOut csrf={csrf} />
            </div>
          </details>
        </>
      ) : (
        <nav aria-label="Account">
          <a href="/docs/readme">Docs</a>
          <a class="btn" href="/login">
            Log in
          </a>
        </nav>
      )}
    </header>
  )
}

/**
 * The workspace switcher: the session's workspace by name, opening on its people, its activity
 * (admins) and the list of the person's workspaces to switch to or make one.
 */
function WorkspaceMenu({ workspace }: { workspace: NonNullable<User['workspace']> }) {
  return (
    <details class="menu">
      <summary class="btn workspace" aria-label={`Workspace: ${workspace.name}`}>
        <bdi dir="auto">{workspace.name}</bdi> ▾
      </summary>
      <div class="items">
        <p class="muted">You are {workspace.role} here</p>
        <a class="btn" href="/settings/members">
          Members
        </a>
        <WorkspaceLinks workspace={workspace} />
      </div>
    </details>
  )
}

function WorkspaceLinks({ workspace }: { workspace: NonNullable<User['workspace']> }) {
  return (
    <>
      {(workspace.role === 'admin' || workspace.role === 'owner') && (
        <a class="btn" href="/settings/activity">
          Activity
        </a>
      )}
      <a class="btn" href="/settings/members#workspaces">
        Switch or make a workspace
      </a>
    </>
  )
}

function LogOut({ csrf }: { csrf?: string }) {
  return (
    <form class="inline" method="post" action="/logout">
      <input type="hidden" name="_csrf" value={csrf ?? ''} />
      <button type="submit">Log out</button>
    </form>
  )
}

export function Csrf({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />
}
