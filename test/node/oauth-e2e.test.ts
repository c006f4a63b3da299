import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  UnauthorizedError,
  type OAuthClientProvider,
} from '@modelcontextprotocol/sdk/client/auth.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type {
  OAuthClientInformationMixed,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js'
import { createServer, type Server } from 'node:http'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { launchBrowser } from './support/browser'
import {
  newDevAccount,
  ON_THIS_MACHINE,
  SETUP_MS,
  startDevServer,
  type DevServer,
} from './support/dev-server'

// A chat app connecting by Canvas's URL alone, as the MCP SDK's own client and its OAuth client
// provider do it, against `wrangler dev`, with the person's part in Chromium: discovery from the
// 401, registration, logging in and approving on the consent page (whose redirect back to the
// app Chromium holds to the page's form-action), the code exchanged with PKCE, tool calls, a
// refresh that rotates, an old refresh token used again ending the grant, and Settings ending
// the next one at once.

let server: DevServer
let browser: Awaited<ReturnType<typeof launchBrowser>>
let callback: Server
let redirectUrl: string
/** Each visit of the app's callback, as the browser made it. */
const arrivals: URL[] = []

beforeAll(async () => {
  ;[server, browser] = await Promise.all([startDevServer(), launchBrowser()])
  callback = createServer((req, res) => {
    // The browser asks for a favicon too: only the callback counts.
    const url = new URL(req.url!, redirectUrl)
    if (url.pathname === '/callback') arrivals.push(url)
    res.writeHead(200, { 'Content-Type': 'text/html' }).end('<title>connected</title>connected')
  })
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve))
  redirectUrl = `http://127.0.0.1:${(callback.address() as { port: number }).port}/callback`
}, SETUP_MS)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  callback?.close()
})

/** What a chat app keeps: its registration, its tokens, the verifier of the request under way. */
class App implements OAuthClientProvider {
  client?: OAuthClientInformationMixed
  saved?: OAuthTokens
  verifier = ''
  authorization?: URL
  lastState = ''
  get redirectUrl() {
    return redirectUrl
  }
  get clientMetadata() {
    return {
      client_name: 'SDK Chat App',
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }
  }
  state() {
    return (this.lastState = `state-${crypto.randomUUID()}`)
  }
  clientInformation() {
    return this.client
  }
  saveClientInformation(client: OAuthClientInformationMixed) {
    this.client = client
  }
  tokens() {
    return this.saved
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens
  }
  redirectToAuthorization(url: URL) {
    this.authorization = url
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier
  }
  codeVerifier() {
    return this.verifier
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'client') this.client = undefined
    if (scope === 'all' || scope === 'tokens') this.saved = undefined
    if (scope === 'all' || scope === 'verifier') this.verifier = ''
  }
}

const mcpUrl = () => new URL(`${server.url}/mcp`)

async function connected(app: App) {
  const client = new Client({ name: 'sdk-chat-app', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: app }))
  return client
}

/** The person's part: the consent page (after logging in, if asked), Allow, back to the app. */
async function approveInBrowser(page: Page, app: App, login?: { email: string; password: string }) {
  const before = arrivals.length
  await page.goto(app.authorization!.href)
  if (login) {
    expect(new URL(page.url()).pathname).toBe('/login')
    await page.fill('input[name=email]', login.email)
    await page.fill('input[name=password]', login.password)
    await page.click('form[action="/login"] button[type=submit]')
  }
  await page.waitForURL((url) => url.pathname === '/oauth/authorize')
  expect(await page.textContent('h1')).toBe('Allow SDK Chat App to use your Canvas?')
  expect(await page.textContent('main')).toContain('Access will be sent to 127.0.0.1')
  await page.click('button[value=approve]')
  // Back at the app: Chromium followed the redirect that the approval's post answered.
  await page.waitForURL((url) => url.href.startsWith(redirectUrl))
  expect(arrivals.length).toBe(before + 1)
  const back = arrivals.at(-1)!
  expect(back.searchParams.get('state')).toBe(app.lastState)
  return back.searchParams.get('code')!
}

const tokenEndpoint = () => `${server.url}/oauth/token`

// This file's server starts with no account: what a new deployment shows its first visitor.
it('sends the first visitor of a new deployment to signup', async () => {
  const person = await browser.newPerson()
  const page = await person.context.newPage()
  await page.goto(server.url + '/')
  expect(new URL(page.url()).pathname).toBe('/signup')
  await person.close()
})

it('connects by the URL alone, approves in the browser, calls tools, refreshes, and is revoked', async () => {
  const email = `chat-${Date.now()}@example.com`
  const password = 'correct horse battery'
  await newDevAccount(server.url, email, undefined, ON_THIS_MACHINE)
  const app = new App()
  const page = await (await browser.newPerson(undefined, ON_THIS_MACHINE)).context.newPage()
  const violations: string[] = []
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text())
  })

  // Given only the URL: a 401, and from it the way to an authorization request.
  await expect(connected(app)).rejects.toBeInstanceOf(UnauthorizedError)
  expect(app.client?.client_id).toBeTruthy()
  expect(app.authorization!.origin).toBe(server.url)
  expect(app.authorization!.searchParams.get('code_challenge_method')).toBe('S256')
  expect(app.authorization!.searchParams.get('resource')).toBe(`${server.url}/mcp`)

  const code = await approveInBrowser(page, app, { email, password })
  expect(violations).toEqual([])
  await new StreamableHTTPClientTransport(mcpUrl(), { authProvider: app }).finishAuth(code)
  const first = app.saved!
  expect(first.expires_in).toBeLessThanOrEqual(3600)

  let client = await connected(app)
  expect((await client.listTools()).tools.map((t) => t.name)).toContain('publish')
  const published = await client.callTool({
    name: 'publish',
    arguments: { content: '# from the chat app', filename: 'chat.md' },
  })
  expect(published.isError).toBeFalsy()
  await client.close()

  // The access token no longer good (as when its hour is up): the SDK refreshes, and rotates.
  app.saved = { ...first, access_token: `${first.access_token}x` }
  client = await connected(app)
  expect((await client.listTools()).tools.length).toBeGreaterThan(5)
  await client.close()
  const second = app.saved!
  expect(second.refresh_token).toBeTruthy()
  expect(second.refresh_token).not.toBe(first.refresh_token)
  expect(second.access_token).not.toBe(first.access_token)

  // The first refresh token, used again: refused, and the whole grant ends with it.
  const reuse = await fetch(tokenEndpoint(), {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token!,
      client_id: app.client!.client_id,
    }),
  })
  expect(reuse.status).toBe(400)
  expect(((await reuse.json()) as { error: string }).error).toBe('invalid_grant')
  const ended = await fetch(mcpUrl(), {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${second.access_token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  })
  expect(ended.status).toBe(401)
  expect(ended.headers.get('WWW-Authenticate')).toContain('error="invalid_token"')

  // The app starts over: its refresh refused, it asks again; signed in, the person only approves.
  await expect(connected(app)).rejects.toBeInstanceOf(UnauthorizedError)
  const again = await approveInBrowser(page, app)
  await new StreamableHTTPClientTransport(mcpUrl(), { authProvider: app }).finishAuth(again)
  client = await connected(app)
  expect((await client.listTools()).tools.length).toBeGreaterThan(5)
  const last = app.saved!.access_token
  const grantId = last.split(':')[1]

  // Disconnected in Settings: the very next call is refused.
  await page.goto(`${server.url}/settings`)
  const row = page.locator(`#app-${grantId}`)
  expect(await row.locator('.primary-cell').textContent()).toBe('SDK Chat App')
  await row.locator('summary').click()
  await row.locator('button[type=submit]').click()
  await page.waitForURL((url) => url.pathname === '/settings')
  expect(await page.locator(`#app-${grantId}`).count()).toBe(0)
  await expect(client.listTools()).rejects.toThrow()
  await client.close()
  const after = await fetch(mcpUrl(), {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${last}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  })
  expect(after.status).toBe(401)
  expect(violations).toEqual([])
  await page.close()
}, 180_000)
