import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { seriousViolations } from './support/axe'
import { launchBrowser } from './support/browser'
import { SVC, svc } from './support/cli'
import { newDevAccount, ON_THIS_MACHINE, sharedDevServer, SETUP_MS } from './support/dev-server'

// `svc login` through the browser and with a device code (docs/cli.md#logging-in), approved in
// real Chromium on the consent and device pages of a real `wrangler dev`; `svc logout` revokes
// what it got. The CLI runs with BROWSER=true: it "opens" nothing, and the test's Chromium goes
// to the address it prints instead, signed in as the person.

let url: string
let work: string
let browser: Awaited<ReturnType<typeof launchBrowser>>

beforeAll(async () => {
  url = (await sharedDevServer()).url
  work = mkdtempSync(join(tmpdir(), 'canvas-cli-sign-in-'))
  browser = await launchBrowser()
}, SETUP_MS)
afterAll(async () => {
  await browser?.close()
  rmSync(work, { recursive: true, force: true })
})

/** `svc <args>` in the background, its stderr collected; `until` waits for a line matching. */
function background(home: string, args: string[]) {
  const child: ChildProcess = spawn(process.execPath, [SVC, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: home, BROWSER: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (d) => (stdout += d))
  child.stderr!.on('data', (d) => (stderr += d))
  const done = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)))
  return {
    done,
    output: () => ({ stdout, stderr }),
    async until(pattern: RegExp): Promise<RegExpMatchArray> {
      for (let i = 0; i < 300; i++) {
        const found = stderr.match(pattern)
        if (found) return found
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      child.kill()
      throw new Error(`svc never printed ${pattern}: ${stderr}`)
    },
  }
}

async function signedInPage(email: string, width: number) {
  const account = await newDevAccount(url, email)
  const person = await browser.newPerson(undefined, ON_THIS_MACHINE)
  const [name, value] = account.cookie.split('=')
  await person.context.addCookies([{ name, value, url }])
  const page = await person.context.newPage()
  await page.setViewportSize({ width, height: 800 })
  return { page, close: () => person.context.close() }
}

const savedKey = (home: string) =>
  JSON.parse(readFileSync(join(home, '.svc/config.json'), 'utf8')).api_key as string

it('svc login opens the consent page; approved, the CLI keeps a key; svc logout revokes it', async () => {
  const { page, close } = await signedInPage(`browser-login-${Date.now()}@example.com`, 1280)
  const home = mkdtempSync(join(work, 'home-'))
  const login = background(home, ['login', '--endpoint', url])
  const [, address] = await login.until(/go to:\n {2}(\S+)\n/)
  expect(address.startsWith(`${url}/oauth/authorize?`)).toBe(true)
  await page.goto(address)
  expect(await page.textContent('h1')).toBe(
    'Allow svc (the Canvas command line) to use your Canvas?',
  )
  expect(await seriousViolations(page)).toEqual([])
  const errors: string[] = []
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()))
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.getByRole('button', { name: 'Allow' }).click()
  await page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/)
  expect(await page.textContent('h1')).toBe('Signed in')
  // The CLI's page follows the person's scheme, and the browser meets no missing icon there.
  const ground = await page.evaluate(() => getComputedStyle(document.body).backgroundColor)
  expect(ground).toBe('rgb(13, 17, 23)')
  expect(await seriousViolations(page)).toEqual([])
  expect(errors).toEqual([])
  await page.emulateMedia({ colorScheme: 'light' })
  expect(await login.done).toBe(0)
  expect(login.output().stdout).toMatch(/^logged in as browser-login-\d+@example\.com/)

  // What it got is a key of the person's, listed in Settings, where it can be revoked.
  const key = savedKey(home)
  expect(key).toMatch(/^svc_/)
  await page.goto(`${url}/settings`)
  expect(await page.textContent('main')).toMatch(/svc on /)
  const who = await svc(home, ['whoami', '--json'])
  expect(JSON.parse(who.stdout).key.scopes).toEqual(['read', 'write'])

  const logout = await svc(home, ['logout'])
  expect(logout).toMatchObject({ code: 0, stdout: 'logged out: the key is revoked\n' })
  const after = await fetch(`${url}/v1/me`, { headers: { Authorization: `Bearer ${key}` } })
  expect(after.status).toBe(401)
  await close()
}, 60_000)

it('svc login --device shows a code; typed on a phone and approved read-only, the CLI gets its key', async () => {
  const { page, close } = await signedInPage(`device-login-${Date.now()}@example.com`, 390)
  const home = mkdtempSync(join(work, 'home-'))
  const login = background(home, ['login', '--device', '--endpoint', url])
  const [, where, code] = await login.until(/open (\S+) and type the code ([A-Z]{4}-[A-Z]{4})/)
  expect(where).toBe(`${url}/oauth/device`)
  await page.goto(where)
  await page.getByLabel('Code').fill(code.toLowerCase())
  await page.getByRole('button', { name: 'Continue' }).click()
  expect(await page.textContent('main')).toContain(code)
  expect(await seriousViolations(page)).toEqual([])
  await page.getByLabel(/list and read canvases/).check()
  await page.getByRole('button', { name: 'Allow' }).click()
  expect(await page.textContent('h1')).toBe('Signed in: back to your terminal')
  expect(await login.done).toBe(0)
  const key = savedKey(home)
  const me = await fetch(`${url}/v1/me`, { headers: { Authorization: `Bearer ${key}` } })
  expect((await me.json()).key.scopes).toEqual(['read'])
  await close()
}, 60_000)
