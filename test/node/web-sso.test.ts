import { afterAll, beforeAll, expect, inject, it } from 'vitest'
import { seriousViolations } from './support/axe'
import { launchBrowser, type Person } from './support/browser'
import { newDevAccount, sharedDevServer, SETUP_MS } from './support/dev-server'
import { SSO_CLIENT_ID } from './support/global-setup'

// Signing in with the team's identity provider in real Chromium against a real `wrangler dev`
// (docs/operations.md): the login page's "Continue with" button, the provider's redirect back,
// and the person signed in, on a phone and a laptop, light and dark.

let url: string
let browser: Awaited<ReturnType<typeof launchBrowser>>
const people: Person[] = []

beforeAll(async () => {
  url = (await sharedDevServer()).url
  // Someone has signed up: the login page is the login page, not the first account's signup.
  await newDevAccount(url, `sso-first-${Date.now()}@example.com`)
  browser = await launchBrowser()
}, SETUP_MS)

afterAll(async () => {
  for (const person of people) await person.close()
  await browser?.close()
})

/** The provider signs the next person of the shared dev server's client in as `email`. */
async function nextSignIn(email: string) {
  const res = await fetch(`${inject('identityProviderUrl')}/people/${SSO_CLIENT_ID}`, {
    method: 'POST',
    body: JSON.stringify({ claims: { sub: `sub-${email}`, email, email_verified: true } }),
  })
  expect(res.status).toBe(204)
}

for (const [width, scheme] of [
  [390, 'light'],
  [1280, 'dark'],
] as const) {
  it(`${width} px, ${scheme}: "Continue with" on the login page signs a newcomer in`, async () => {
    const person = await browser.newPerson()
    people.push(person)
    const page = await person.context.newPage()
    await page.setViewportSize({ width, height: 800 })
    await page.emulateMedia({ colorScheme: scheme })
    const email = `sso-${width}-${Date.now()}@acme.example`
    await nextSignIn(email)
    await page.goto(`${url}/login?next=${encodeURIComponent('/settings')}`)
    const button = page.getByRole('link', { name: 'Continue with Acme SSO' })
    const box = (await button.boundingBox())!
    // A thumb's target on a phone (the house's buttons are 34 px on a laptop).
    expect(box.height).toBeGreaterThanOrEqual(width < 600 ? 44 : 34)
    expect(box.x + box.width).toBeLessThanOrEqual(width)
    expect(await seriousViolations(page)).toEqual([])
    await button.click()
    await page.waitForURL(`${url}/settings`)
    expect(await page.textContent('body')).toContain(email)
  })
}
