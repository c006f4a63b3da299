import type { ConnectedApp } from '../../domain/oauth/grants'
import { formatSize } from '../../lib/format'
import type { Flash } from '../flash'
import { InstallCli, type CliInstall } from '../pages/install-cli'
import { Csrf, Layout, type User } from '../pages/layout'
import { flashAt, FormError, Notice } from '../pages/notice'
import { AppsSection, KeysSection, type KeyView } from './access-section'
import { PasswordSection } from './password-section'
import { WebhooksSection, type WebhookView } from './webhooks-section'

/** /settings: the person's usage, name, password, CLI, keys and apps, and the webhooks. */
export function Settings(props: {
  user: User
  csrf: string
  keys: KeyView[]
  apps: ConnectedApp[]
  flash?: Flash
  usage: Usage
  error?: string
  /** Null for a member who is not an admin: the section is not theirs. */
  webhooks: WebhookView[] | null
  webhookError?: string
  /** The display name as set (null: none), and the name people outside the workspace see. */
  name: NameView
  nameError?: string
  /** Whether the account has a password (one made by single sign-on has none yet). */
  hasPassword: boolean
  /** False with PASSWORD_LOGIN=off: a password opens nothing, and is not offered. */
  passwordLogin: boolean
  passwordError?: string
  /** This deployment's address, for the line that installs its CLI. */
  cli: CliInstall
}) {
  const { csrf } = props
  return (
    <Layout title="Settings" user={props.user} csrf={csrf}>
      <h1>Settings</h1>
      <UsageSection usage={props.usage} />
      <NameSection csrf={csrf} name={props.name} flash={props.flash} error={props.nameError} />
      {props.passwordLogin && (
        <PasswordSection
          csrf={csrf}
          hasPassword={props.hasPassword}
          flash={props.flash}
          error={props.passwordError}
        />
      )}
      <h2 id="cli">Command line</h2>
      <p class="muted">
        This deployment’s own <code>svc</code>, already pointed at it:
      </p>
      <InstallCli {...props.cli} />
      <KeysSection
        csrf={csrf}
        keys={props.keys}
        workspace={props.user.workspace?.name}
        flash={props.flash}
        error={props.error}
      />
      <AppsSection csrf={csrf} apps={props.apps} />
      {props.webhooks && (
        <WebhooksSection
          csrf={csrf}
          webhooks={props.webhooks}
          flash={flashAt(props.flash, 'webhooks')}
          error={props.webhookError}
        />
      )}
    </Layout>
  )
}

type Usage = {
  canvases: { total: number }
  versions: number
  bytes: { content: number; stored: number }
}

function UsageSection({ usage }: { usage: Usage }) {
  return (
    <>
      <h2>Usage</h2>
      <div class="panel stats">
        <div>
          <b>{usage.canvases.total}</b>canvases
        </div>
        <div>
          <b>{usage.versions}</b>versions
        </div>
        <div>
          <b>{formatSize(usage.bytes.content)}</b>content
        </div>
        <div>
          <b>{formatSize(usage.bytes.stored)}</b>stored
        </div>
      </div>
    </>
  )
}

type NameView = { displayName: string | null; shown: string; fallback: string }

function NameSection(props: { csrf: string; name: NameView; flash?: Flash; error?: string }) {
  return (
    <>
      <h2 id="name">Your name</h2>
      <p class="muted">
        What the readers of a share link see on what you write; members of the workspace see your
        email. Leave it empty to go back to <strong>{props.name.fallback}</strong>.
      </p>
      <Notice flash={flashAt(props.flash, 'name')} />
      {props.error && <FormError>{props.error}</FormError>}
      <form class="panel row" method="post" action="/settings/name">
        <Csrf token={props.csrf} />
        <div>
          <label for="display-name">Display name</label>
          <input
            id="display-name"
            name="display_name"
            maxlength={60}
            autocomplete="name"
            value={props.name.displayName ?? ''}
            placeholder={props.name.fallback}
          />
        </div>
        <button class="primary" type="submit">
          Save name
        </button>
      </form>
    </>
  )
}
