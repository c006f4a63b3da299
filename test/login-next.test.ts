import { describe, expect, it } from 'vitest'
import { call, formPost, newAccount, newCanvas } from './support/api'

// A page that needs a session sends a visitor to log in and back to the very address they asked
// for, query included (an app's authorization request is all in its query), and to nowhere else.

describe('login and back', () => {
  it('keeps the whole address, query included, and follows it after login', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'one')
    const asked = `/c/${canvas.canvas_id}/diff?from=1&to=1&note=a+b:c%2Fd`
    const away = await call(asked)
    expect(away.status).toBe(302)
    const login = new URL(away.headers.get('Location')!, 'http://canvas.test')
    expect(login.pathname).toBe('/login')
    expect(login.searchParams.get('next')).toBe(asked)
    // The login form carries it, and the login goes there.
    const page = await (await call(`/login${login.search}`)).text()
    expect(page).toContain(`name="next" value="${asked.replaceAll('&', '&amp;')}"`)
    const back = await call(
      '/login',
      formPost({ email: account.email, password: account.password, next: asked }),
    )
    expect(back.headers.get('Location')).toBe(asked)
  })

  it('never leaves this site, however the address is spelt', async () => {
    const account = await newAccount()
    const away = [
      '//evil.example/x',
      '/\\evil.example/x',
      '/\t/evil.example/x',
      '/.//evil.example/x',
      '/%2e//evil.example',
      'https://evil.example/x',
      'javascript:alert(1)',
      '',
      'settings',
    ]
    for (const next of away) {
      const res = await call(
        '/login',
        formPost({ email: account.email, password: account.password, next }),
      )
      expect(res.headers.get('Location'), JSON.stringify(next)).toBe('/')
    }
  })
})
