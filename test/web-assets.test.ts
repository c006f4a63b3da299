import { expect, it } from 'vitest'
import { APP_CSS, APP_JS } from '../src/web/asset-urls'
import { call, newAccount } from './support/api'

// The app's script and stylesheet are static assets under names hashed from their bytes; the
// Worker only names them. test/node/assets.test.ts checks how they are built and served.

it('every page names the app’s script and stylesheet by their hashed names', async () => {
  const account = await newAccount()
  for (const path of ['/signup', '/login', '/docs', '/no-such-page', '/']) {
    const res = await call(path, { cookie: path === '/' ? account.cookie : undefined })
    expect(res.headers.get('Content-Type'), path).toMatch(/^text\/html/)
    const page = await res.text()
    expect(page, path).toContain(`<link rel="stylesheet" href="${APP_CSS}"/>`)
    expect(page, path).toContain(`<script src="${APP_JS}" defer="">`)
  }
  expect(APP_JS).toMatch(/^\/assets\/app\.[0-9a-f]{16}\.js$/)
  expect(APP_CSS).toMatch(/^\/assets\/app\.[0-9a-f]{16}\.css$/)
})

it('the Worker itself serves no file under /assets: the static assets answer before it', async () => {
  for (const path of [APP_JS, APP_CSS, '/assets/app.js', '/assets/app.css']) {
    const res = await call(path)
    expect(res.status, path).toBe(404)
    expect(res.headers.get('Content-Type'), path).toMatch(/^text\/html/)
  }
})
