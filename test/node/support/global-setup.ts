import { rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { BrowserServer } from 'playwright-core'
import type { TestProject } from 'vitest/node'
import { launchBrowserServer } from './browser'
import { buildCli } from './cli'
import { CLIENT_SECRET, startIdentityProvider, type IdentityProvider } from './identity-provider'
import {
  newDevAccount,
  ON_THIS_MACHINE,
  prepareDevState,
  startDevServer,
  type DevServer,
} from './dev-server'

declare module 'vitest' {
  interface ProvidedContext {
    /** Where a test file asks for the shared dev server and the migrated state (dev-server.ts). */
    devServerControl: string
    /** The OpenID Connect provider the shared dev server signs people in with. */
    identityProviderUrl: string
  }
}

/** The shared dev server's client at the tests' identity provider. */
export const SSO_CLIENT_ID = 'canvas-shared-dev-server'

/**
 * Once per run of the node project: bundles the CLI (the files that spawn it run at the same time,
 * and one must not read dist/svc.mjs while another rewrites it); applies the D1 migrations to a
 * local state that every dev server of the run starts from a copy of (see startDevServer); and
 * holds the one `wrangler dev` that the files without settings of their own share, each on an
 * account and workspace of its own (webhooks may send to 127.0.0.1, where the files run their
 * receivers), with its owner's first account; and the Chromium the browser files share. The
 * state is made, and the server and the browser started, when a file first asks for them, so a
 * run of files that need none makes none; both stop when the run ends, whether the tests passed
 * or not.
 */
export default async function setup(project: TestProject) {
  buildCli()
  let state: Promise<string> | undefined
  let server: Promise<DevServer> | undefined
  // The shared dev server offers single sign-on with the tests' own provider (identity-
  // provider.ts), as a team's deployment would; passwords stay on beside it.
  const provider: IdentityProvider = await startIdentityProvider()
  const sso = [
    ...['--var', `OIDC_ISSUER:${provider.url}`, '--var', `OIDC_CLIENT_ID:${SSO_CLIENT_ID}`],
    ...['--var', `OIDC_CLIENT_SECRET:${CLIENT_SECRET}`, '--var', 'OIDC_NAME:Acme SSO'],
  ]
  let browser: Promise<BrowserServer> | undefined
  const migrated = () => (state ??= prepareDevState())
  const shared = () =>
    (server ??= migrated().then(async (from) => {
      const started = await startDevServer(
        ['--var', 'SIGNUP:open', '--var', 'WEBHOOK_ALLOW_LOCAL:1', ...sso],
        from,
      )
      // Its owner's account, made on the machine itself: every file then meets a deployment that
      // has one, whichever file starts first.
      await newDevAccount(started.url, 'owner@shared.example', undefined, ON_THIS_MACHINE)
      return started
    }))
  const answers: Record<string, () => Promise<string>> = {
    '/': () => shared().then((started) => started.url),
    '/output': () => shared().then((started) => started.output()),
    '/state': migrated,
    '/browser': () => (browser ??= launchBrowserServer()).then((started) => started.wsEndpoint()),
  }
  const control = createServer((req, res) => {
    const answer = answers[req.url ?? '']?.() ?? Promise.reject(new Error(`no ${req.url} here`))
    answer.then(
      (value) => {
        res.setHeader('Content-Type', 'application/json')
        res.end(JSON.stringify(value))
      },
      (err: Error) => {
        res.statusCode = 500
        res.end(err.message)
      },
    )
  })
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve))
  const { port } = control.address() as AddressInfo
  project.provide('devServerControl', `http://127.0.0.1:${port}`)
  project.provide('identityProviderUrl', provider.url)
  return async () => {
    control.closeAllConnections()
    control.close()
    const started = await server?.catch(() => undefined)
    await started?.stop()
    await (await browser?.catch(() => undefined))?.close()
    await provider.stop()
    const made = await state?.catch(() => undefined)
    if (made) rmSync(made, { recursive: true, force: true })
  }
}
