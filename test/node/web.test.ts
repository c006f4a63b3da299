import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { launchBrowser, type Person } from './support/browser'
import { svc } from './support/cli'
import { sharedDevServer, SETUP_MS } from './support/dev-server'
import { callApi, type ApiInit } from './support/api.ts'
import { publisher } from './support/publish.ts'

// The web app in real Chromium against a real `wrangler dev`.

const PDF = new URL('./fixtures/hello.pdf', import.meta.url)
let server: { url: string }
let browser: Awaited<ReturnType<typeof launchBrowser>>
let owner: Person
let page: Page
let key: string
const email = 'web@example.com'
const password = 'correct horse battery'

beforeAll(async () => {
  server = await sharedDevServer()
  browser = await launchBrowser()
  owner = await browser.newPerson()
  page = await owner.context.newPage()
}, SETUP_MS)

afterAll(async () => {
  await browser?.close()
})

const api = (path: string, init?: ApiInit) => callApi(server.url, key, path, init)

const { canvas, site } = publisher(api)

async function frameText(target: Page, selector = 'body') {
  await target.waitForSelector('iframe')
  const frame = target.frameLocator('iframe')
  return (await frame.locator(selector).first().innerText({ timeout: 10_000 })).trim()
}

describe('accounts and keys', () => {
  it('shows a visitor what Canvas is, signs up from there, and lands on the dashboard', async () => {
    // A deployment with no account yet sends its first visitor to signup (oauth-e2e.test.ts).
    await page.goto(server.url + '/')
    expect(new URL(page.url()).pathname).toBe('/')
    await page.click('main a[href="/signup"]')
    await page.waitForURL(server.url + '/signup')
    await page.fill('#email', email)
    await page.fill('#password', password)
    await page.click('button[type=submit]')
    await page.waitForURL(server.url + '/')
    expect(await page.textContent('h1')).toBe('Canvases')
    expect(await page.textContent('.empty')).toContain('No canvases yet')
  })

  it('creates an API key shown once with the login line, lists it, and revokes it', async () => {
    await page.goto(server.url + '/settings')
    await page.fill('#key-name', 'browser key')
    await page.selectOption('#key-scope', 'write')
    await page.click('form[action="/settings/keys"] button[type=submit]')
    // Post, redirect, get: the key is on the page the redirect lands on, once.
    await page.waitForURL(server.url + '/settings')
    key = (await page.textContent('#copy-0'))!.trim()
    expect(key).toMatch(/^svc_[A-Za-z0-9]{40}$/)
    expect((await page.textContent('#copy-1'))!.trim()).toBe(
      `svc login --token ${key} --endpoint ${server.url}`,
    )
    expect((await api('/v1/me')).status).toBe(200)

    await page.reload()
    expect(await page.content()).not.toContain(key)
    const row = page.locator('tr', { hasText: 'browser key' })
    expect(await row.innerText()).toContain(key.slice(0, 12))
    expect(await page.locator('tbody tr').count()).toBe(1)

    // A second key to revoke, keeping the first for the rest of the tests.
    await page.fill('#key-name', 'to revoke')
    await page.click('form[action="/settings/keys"] button[type=submit]')
    await page.waitForURL(server.url + '/settings')
    const doomed = (await page.textContent('#copy-0'))!.trim()
    const doomedRow = page.locator('tr', { hasText: 'to revoke' })
    // Revoking asks first.
    await doomedRow.locator('summary', { hasText: 'Revoke…' }).click()
    await doomedRow.locator('button', { hasText: 'Revoke to revoke' }).click()
    await page.waitForURL(server.url + '/settings')
    expect(await page.textContent('.notice[role=status]')).toContain('“to revoke” is revoked')
    expect(await page.locator('tr', { hasText: 'to revoke' }).count()).toBe(0)
    const revoked = await fetch(`${server.url}/v1/me`, {
      headers: { Authorization: `Bearer ${doomed}` },
    })
    expect(revoked.status).toBe(401)
  })

  it('logs out and back in', async () => {
    await page.goto(server.url + '/')
    await page.click('header form[action="/logout"] button')
    await page.waitForURL(/\/login$/)
    await page.goto(server.url + '/settings')
    expect(new URL(page.url()).pathname).toBe('/login')
    await page.fill('#email', email)
    await page.fill('#password', 'wrong password')
    await page.click('button[type=submit]')
    expect(await page.textContent('[role=alert]')).toBe('Wrong email or password.')
    await page.fill('#password', password)
    await page.click('button[type=submit]')
    await page.waitForURL(server.url + '/settings')
  })
})

describe('the dashboard', () => {
  it('shows a canvas created through the API and runs every action', async () => {
    const id = await canvas('Dashboard demo.md', '# Demo')
    await page.goto(server.url + '/')
    const row = page.locator(`#canvas-${id}`)
    expect(await row.innerText()).toContain('Dashboard demo.md')
    expect(await row.innerText()).toContain('md')

    const menu = (name: string) => async () => {
      await page.locator(`#canvas-${id} summary`, { hasText: 'More' }).click()
      await page.locator(`#canvas-${id} .items`).getByText(name).click()
    }
    await menu('Make permanent')()
    await page.waitForURL(/\/#canvas-/)
    expect(await page.textContent('.notice[role=status]')).toContain('is permanent')
    expect(await page.locator(`#canvas-${id}`).innerText()).toContain('never')

    await menu('Make public')()
    await page.waitForURL(/\/#canvas-/)
    expect(await page.locator(`#canvas-${id} .chip.public`).innerText()).toBe('public')
    // A reload repeats nothing and shows no message again.
    await page.reload()
    expect(await page.locator('.notice[role=status]').count()).toBe(0)

    // Sharing happens on the canvas's page, in a dialog with every option.
    await menu('Share…')()
    await page.waitForURL(new RegExp(`/c/${id}#share$`))
    await page.selectOption('#share-expires', '7d')
    await page.fill('#share-max-views', '3')
    await page.selectOption('#share-version', '1')
    await page.fill('#share-password', 'open sesame')
    await page.click('button:has-text("Create link")')
    await page.waitForURL(new RegExp(`/c/${id}#share$`))
    const shareUrl = (await page.textContent('#copy-0'))!.trim()
    expect(shareUrl).toMatch(new RegExp(`^${server.url}/s/[A-Za-z0-9]{22}$`))
    const token = shareUrl.split('/s/')[1]
    const links = page.locator(`#share-${token}`)
    expect(await links.innerText()).toMatch(/0 of 3/)
    expect(await links.innerText()).toMatch(/v1 only/)
    const shares = (await (await api(`/v1/canvases/${id}/shares`)).json()) as any
    expect(shares.shares).toMatchObject([{ max_views: 3, version: 1, has_password: true }])

    await links.locator('button', { hasText: 'Revoke' }).click()
    await page.waitForURL(new RegExp(`/c/${id}#share$`))
    expect(await page.textContent('.notice[role=status]')).toContain('is revoked')
    expect(((await (await api(`/v1/canvases/${id}/shares`)).json()) as any).shares).toHaveLength(0)

    await page.click('.bar details.menu > summary')
    await page.click('.bar .items a:has-text("Delete…")')
    expect(await page.textContent('h1')).toContain('Delete “Dashboard demo.md”?')
    await page.click('button:has-text("Delete for good")')
    await page.waitForURL(server.url + '/')
    expect(await page.textContent('.notice[role=status]')).toContain('was deleted')
    expect(await page.locator(`#canvas-${id}`).count()).toBe(0)
    expect((await api(`/v1/canvases/${id}`)).status).toBe(404)
  })

  it('filters by type and visibility', async () => {
    await canvas('filter.csv', 'a,b\n1,2\n')
    await page.goto(server.url + '/?type=csv')
    const titles = await page.locator('tbody tr td:first-child > div > a').allInnerTexts()
    expect(titles.length).toBeGreaterThan(0)
    expect(titles.every((t) => t.endsWith('.csv'))).toBe(true)
    await page.goto(server.url + '/?visibility=public')
    expect(await page.locator('tbody .chip.private').count()).toBe(0)
  })
})

describe('renderers', () => {
  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg==',
    'base64',
  )
  const cases: [string, string | Uint8Array<ArrayBuffer>, (page: Page) => Promise<void>][] = [
    [
      'page.html',
      '<h1 id=t>static</h1><script>document.getElementById("t").textContent="scripted"</script>',
      async (p) => {
        expect(await frameText(p, '#t')).toBe('scripted')
      },
    ],
    [
      'notes.md',
      '# Heading\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n\n```py\nx = 1\n```\n',
      async (p) => {
        expect(await frameText(p, 'h1')).toBe('Heading')
        expect(await frameText(p, 'table td')).toBe('1')
        expect(
          await p.frameLocator('iframe').locator('input[type=checkbox][checked]').count(),
        ).toBe(1)
        expect(await p.frameLocator('iframe').locator('pre code .hljs-number').count()).toBe(1)
      },
    ],
    [
      'main.go',
      'package main\n\nfunc main() {}\n',
      async (p) => {
        expect(await p.frameLocator('iframe').locator('td.ln').count()).toBe(3)
        expect(await frameText(p, '.hljs-keyword')).toBe('package')
      },
    ],
    [
      'data.json',
      '{"name":"canvas","list":[1,2]}',
      async (p) => {
        expect(await frameText(p, '.k')).toBe('"name"')
        expect(await p.frameLocator('iframe').locator('details').count()).toBe(2)
      },
    ],
    [
      'people.csv',
      'name,city\n"Doe, Jane",Oslo\n',
      async (p) => {
        expect(await frameText(p, 'thead th')).toBe('name')
        expect(await frameText(p, 'tbody td')).toBe('Doe, Jane')
      },
    ],
    [
      'pixel.png',
      png,
      async (p) => {
        const img = p.frameLocator('iframe').locator('img')
        await img.waitFor()
        await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(2)
      },
    ],
    [
      'clip.mp4',
      new Uint8Array(16),
      async (p) => {
        expect(await p.frameLocator('iframe').locator('video[controls]').count()).toBe(1)
      },
    ],
    [
      'log.txt',
      'line one\n<b>not bold</b>',
      async (p) => {
        expect(await frameText(p, 'pre')).toBe('line one\n<b>not bold</b>')
      },
    ],
    [
      'archive.zip',
      new Uint8Array([80, 75, 3, 4]),
      async (p) => {
        expect(await frameText(p, '.card .name')).toBe('archive.zip')
        expect(await frameText(p, '.card a')).toBe('Download')
      },
    ],
  ]
  for (const [name, content, check] of cases) {
    it(`shows ${name}`, async () => {
      const id = await canvas(name, content)
      await page.goto(`${server.url}/c/${id}`)
      expect(await page.textContent('.bar .title')).toBe(name)
      await check(page)
    })
  }

  it('shows a PDF in the browser viewer, sandboxed by its response header', async () => {
    const id = await canvas('hello.pdf', new Uint8Array(readFileSync(PDF)))
    // The whole browser, signed in as the owner: the headless shell has no PDF viewer.
    const whole = await launchBrowser({ pdfViewer: true })
    try {
      const viewer = await (
        await whole.newPerson(await owner.context.storageState())
      ).context.newPage()
      await viewer.goto(`${server.url}/c/${id}`)
      expect(await viewer.locator('iframe').getAttribute('sandbox')).toBeNull()
      const storage = () => viewer.frames().find((f) => f.url().includes('/_storage/'))
      await expect.poll(() => storage() !== undefined).toBe(true)
      const res = await fetch(storage()!.url())
      expect(res.headers.get('content-type')).toBe('application/pdf')
      expect(res.headers.get('content-security-policy')).toMatch(/^sandbox;/)
    } finally {
      await whole.close()
    }
  })

  it('the version picker shows older versions', async () => {
    const id = await canvas('versions.txt', 'first')
    const form = new FormData()
    form.append('file', new Blob(['second']), 'versions.txt')
    await api(`/v1/canvases/${id}`, { method: 'PATCH', body: form })
    await page.goto(`${server.url}/c/${id}`)
    expect(await frameText(page, 'pre')).toBe('second')
    // Choosing a version shows it: no extra click (the Show button is for pages without script).
    expect(await page.locator('.bar button:has-text("Show")').isVisible()).toBe(false)
    await page.selectOption('select[name=v]', '1')
    await page.waitForURL(/\?v=1$/)
    expect(await frameText(page, 'pre')).toBe('first')
  })
})

describe('sharing and visibility', () => {
  it('a password share opens after the form and counts one view', async () => {
    const id = await canvas('secret.txt', 'the secret text')
    const link = (await (
      await api(`/v1/canvases/${id}/shares`, { method: 'POST', json: { password: 'open sesame' } })
    ).json()) as any
    const stranger = await browser.newPerson()
    try {
      const p = await stranger.context.newPage()
      await p.goto(`${server.url}/s/${link.token}`)
      expect(await p.textContent('h1')).toBe('This link is password protected')
      await p.fill('#share-password', 'wrong')
      await p.click('button[type=submit]')
      expect(await p.textContent('[role=alert]')).toBe('Wrong password. Try again.')
      await p.fill('#share-password', 'open sesame')
      await p.click('button[type=submit]')
      expect(await frameText(p, 'pre')).toBe('the secret text')
      expect(p.url()).not.toContain('sesame')
      // The form post ended on a page of its own (post, redirect, get): a reload asks nothing,
      // posts nothing and counts nothing.
      await p.reload()
      expect(await frameText(p, 'pre')).toBe('the secret text')
      expect(await p.locator('meta[name=robots]').getAttribute('content')).toBe('noindex, nofollow')
      expect(await p.locator('meta[property="og:title"]').getAttribute('content')).toBe(
        'secret.txt',
      )
    } finally {
      await stranger.close()
    }
    const shares = (await (await api(`/v1/canvases/${id}/shares`)).json()) as any
    expect(shares.shares[0].view_count).toBe(1)
  })

  it('expired, used-up and revoked links show their pages', async () => {
    const id = await canvas('limited.txt', 'x')
    const once = (await (
      await api(`/v1/canvases/${id}/shares`, { method: 'POST', json: { max_views: 1 } })
    ).json()) as any
    // The page a link preview would fetch uses no view; the person's click does.
    await page.goto(`${server.url}/s/${once.token}`)
    expect(await page.textContent('h1')).toBe('limited.txt')
    expect(await page.textContent('main')).toContain('it has 1 view left, and opening it uses one')
    await page.click('button[type=submit]')
    expect(await frameText(page, 'pre')).toBe('x')
    // A reload of the view just opened shows it again, counting nothing...
    await page.reload()
    expect(await frameText(page, 'pre')).toBe('x')
    // ...and to anyone else the link is used up.
    const stranger = await browser.newPerson()
    try {
      const other = await stranger.context.newPage()
      const second = await other.goto(`${server.url}/s/${once.token}`)
      expect(second!.status()).toBe(410)
      expect(await other.textContent('h1')).toBe('This link has been used up')
    } finally {
      await stranger.close()
    }
    const missing = await page.goto(`${server.url}/s/doesnotexist1`)
    expect(missing!.status()).toBe(404)
    expect(await page.textContent('h1')).toBe('Link not found')
  })

  it('a public canvas opens without login in a fresh browser; a private one does not', async () => {
    const open = await canvas('open.txt', 'for everyone')
    await api(`/v1/canvases/${open}`, { method: 'PATCH', json: { visibility: 'public' } })
    const closed = await canvas('closed.txt', 'owner only')
    const stranger = await browser.newPerson()
    try {
      const p = await stranger.context.newPage()
      await p.goto(`${server.url}/c/${open}`)
      expect(await frameText(p, 'pre')).toBe('for everyone')
      expect(await p.locator('.bar form[action$="/share"]').count()).toBe(0)
      await p.goto(`${server.url}/c/${closed}`)
      expect(new URL(p.url()).pathname).toBe('/login')
      expect(await p.content()).not.toContain('owner only')
    } finally {
      await stranger.close()
    }
  })
})

describe('the sandbox', () => {
  it('an html canvas cannot reach the parent page, its cookies, or the API', async () => {
    const attack = `<pre id=out>running</pre><script>
      const out = []
      try { out.push('parent:' + parent.document.title) } catch (e) { out.push('parent:blocked') }
      try { out.push('cookie:' + (document.cookie || 'none')) } catch (e) { out.push('cookie:blocked') }
      try { out.push('storage:' + localStorage.length) } catch (e) { out.push('storage:blocked') }
      fetch('/auth/keys', { method: 'POST', credentials: 'include', headers: { 'Content-Type': 'application/json' }, body: '{"name":"stolen"}' })
        .then(r => r.status, () => 'failed').then(s => { out.push('fetch:' + s); document.getElementById('out').textContent = out.join(' ') })
    </script>`
    const id = await canvas('attack.html', attack)
    await page.goto(`${server.url}/c/${id}`)
    const frame = page.frameLocator('iframe')
    await expect
      .poll(() => frame.locator('#out').innerText(), { timeout: 10_000 })
      .toContain('fetch:')
    const result = await frame.locator('#out').innerText()
    expect(result).toContain('parent:blocked')
    expect(result).toContain('cookie:blocked')
    expect(result).toContain('storage:blocked')
    expect(result).not.toMatch(/fetch:201/)
    const keys = await page.goto(server.url + '/settings')
    expect(keys!.status()).toBe(200)
    expect(await page.locator('tr', { hasText: 'stolen' }).count()).toBe(0)
  })

  it('a three-file site: styled, its script fetches its own JSON, the app out of reach', async () => {
    const files: Record<string, [string, string, string]> = {
      'index.html': [
        '<link rel="stylesheet" href="css/site.css"><h1 id="title">Quarterly</h1>' +
          '<ul id="points"></ul><pre id="out">running</pre><script src="js/app.js"></script>',
        'html',
        'text/html',
      ],
      'css/site.css': ['#title { color: rgb(0, 128, 128) }', 'css', 'text/css'],
      'js/app.js': [
        `fetch('data/points.json').then(r => r.json()).then(points => {
          for (const p of points) { const li = document.createElement('li'); li.textContent = p.label; document.getElementById('points').append(li) }
          const out = []
          try { out.push('cookie:' + (document.cookie || 'none')) } catch (e) { out.push('cookie:blocked') }
          try { out.push('parent:' + parent.document.title) } catch (e) { out.push('parent:blocked') }
          return fetch(${JSON.stringify(server.url)} + '/auth/keys', { credentials: 'include' })
            .then(r => 'keys:' + r.status, () => 'keys:failed')
            .then(k => { out.push(k); document.getElementById('out').textContent = out.join(' ') })
        })`,
        'js',
        'text/javascript',
      ],
      'data/points.json': ['[{"label":"alpha"},{"label":"beta"}]', 'json', 'application/json'],
    }
    const id = await site('Quarterly', files)
    await page.goto(`${server.url}/c/${id}`)
    const frame = page.frameLocator('iframe')
    await expect.poll(() => frame.locator('#points li').count(), { timeout: 10_000 }).toBe(2)
    expect(await frame.locator('#points').innerText()).toBe('alpha\nbeta')
    const color = await frame.locator('#title').evaluate((el) => getComputedStyle(el).color)
    expect(color).toBe('rgb(0, 128, 128)')
    await expect
      .poll(() => frame.locator('#out').innerText(), { timeout: 10_000 })
      .toContain('keys:')
    const result = await frame.locator('#out').innerText()
    expect(result).toContain('cookie:blocked')
    expect(result).toContain('parent:blocked')
    // The session cookie never rides along: the app answers as to a stranger (or CORS refuses).
    expect(result).not.toContain('keys:200')
    // The page lists the site's files.
    expect(await page.locator('table.files td.primary-cell a').allInnerTexts()).toEqual([
      'css/site.css',
      'data/points.json',
      'index.html',
      'js/app.js',
    ])
  })

  it('markdown and SVG payloads run nothing', async () => {
    const payloads = [
      '<script>alert("xss1")</script>',
      '<img src=x onerror="alert(\'xss2\')">',
      '[click](javascript:alert("xss3"))',
      '<svg onload="alert(\'xss4\')"></svg>',
      '<iframe srcdoc="<script>alert(5)</script>"></iframe>',
      '<a href="javascript:alert(6)">a</a>',
      '![x](javascript:alert(7))',
      '<details open ontoggle="alert(8)">',
      '<body onload=alert(9)>',
      '[x](JaVaScRiPt:alert(10))',
      '<math><mtext><table><mglyph><style><img src=x onerror=alert(11)>',
      '<object data="javascript:alert(12)"></object>',
    ]
    const dialogs: string[] = []
    page.on('dialog', (d) => {
      dialogs.push(d.message())
      void d.dismiss()
    })
    const md = await canvas('payloads.md', payloads.join('\n\n'))
    await page.goto(`${server.url}/c/${md}`)
    const frame = page.frameLocator('iframe')
    await frame.locator('article').waitFor()
    // The frame's one script is the comments bridge, the only one its policy allows (by hash).
    expect(await frame.locator('script').count()).toBe(1)
    expect(await frame.locator('body > script:last-child[data-app]').count()).toBe(1)
    expect(
      await frame
        .locator('script:not([data-app]), iframe, object, [onerror], [onload], [ontoggle]')
        .count(),
    ).toBe(0)
    expect(await frame.locator('a[href^="javascript:" i], img[src^="javascript:" i]').count()).toBe(
      0,
    )
    await page.locator('iframe').click({ position: { x: 30, y: 30 } })

    const svg = await canvas(
      'evil.svg',
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" onload="alert(13)"><script>alert(14)</script><rect width="10" height="10"/></svg>',
    )
    await page.goto(`${server.url}/c/${svg}`)
    await page.frameLocator('iframe').locator('img').waitFor()
    await page.waitForTimeout(500)
    expect(dialogs).toEqual([])
  })

  it('pages and frames carry the security headers', async () => {
    const res = await fetch(server.url + '/login')
    const csp = res.headers.get('content-security-policy')!
    expect(csp).toContain("default-src 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    const id = await canvas('headers.html', '<p>x</p>')
    await page.goto(`${server.url}/c/${id}`)
    const src = await page.locator('iframe').getAttribute('src')
    const sandbox = await page.locator('iframe').getAttribute('sandbox')
    expect(sandbox).not.toContain('allow-same-origin')
    const frame = await fetch(new URL(src!, server.url))
    const frameCsp = frame.headers.get('content-security-policy')!
    expect(frameCsp).toMatch(/^sandbox /)
    expect(frameCsp).not.toContain('allow-same-origin')
    expect(frameCsp).toContain(`frame-ancestors ${server.url}`)
    const tampered = await fetch(new URL(src!.replace(/sig=[0-9a-f]+/, 'sig=00'), server.url))
    expect(tampered.status).toBe(403)
  })
})

describe('publishing from the page', () => {
  const MB = 1024 * 1024

  it('uploads a 20 MB file straight to storage with progress; the same file again is reused', async () => {
    await page.goto(server.url + '/')
    // Every value the progress bar takes, reported from the page as it happens.
    const seen: number[] = []
    await page.exposeFunction('reportProgress', (value: number) => seen.push(value))
    await page.evaluate(() => {
      const bar = document.querySelector('form[data-upload] progress')!
      const report = (window as unknown as { reportProgress(v: number): void }).reportProgress
      // A callback may carry several changes: each record's old value, then the current one.
      new MutationObserver((records) => {
        for (const record of records.slice(1)) report(Number(record.oldValue))
        report(Number(bar.getAttribute('value')))
      }).observe(bar, { attributes: true, attributeFilter: ['value'], attributeOldValue: true })
    })
    // On a fast machine 20 MB to 127.0.0.1 can finish before the browser's first progress
    // event; at 20 MB/s the upload takes about a second and the bar has values to show.
    const network = await page.context().newCDPSession(page)
    await network.send('Network.enable')
    await network.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 20 * MB,
    })
    // From a file on disk: Chromium reads it by its path. Handed over as a buffer, the 20 MB
    // crosses the protocol as base64, which on a loaded machine outlasted the action's timeout.
    const folder = mkdtempSync(join(tmpdir(), 'canvas-big-'))
    const big = join(folder, 'big.txt')
    writeFileSync(big, Buffer.alloc(20 * MB, 'canvas '))
    try {
      await page.setInputFiles('#upload-file', big)
      await page.click('form[data-upload] button[type=submit]')
      // The page reads the file as it sends it: the file stays until the upload is done.
      await page.waitForURL(/\/c\/[A-Za-z0-9]+$/, { timeout: 60_000 })
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
    expect(await page.textContent('.notice[role=status]')).toContain('“big.txt” is published.')
    const id = new URL(page.url()).pathname.slice(3)
    const made = (await (await api(`/v1/canvases/${id}`)).json()) as any
    expect(made).toMatchObject({ title: 'big.txt', size: 20 * MB, version: 1 })
    expect(seen.at(-1)).toBe(100)
    expect(seen.some((v) => v > 0 && v < 100)).toBe(true)
    await network.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    })
    await network.detach()

    // The same bytes dropped on the dashboard: a new canvas, the file not sent again.
    await page.goto(server.url + '/')
    const dropped = await page.evaluateHandle((size) => {
      const transfer = new DataTransfer()
      transfer.items.add(new File(['canvas '.repeat(size / 7 + 1).slice(0, size)], 'again.txt'))
      return transfer
    }, 20 * MB)
    await page.dispatchEvent('form[data-upload]', 'drop', { dataTransfer: dropped })
    await page.waitForURL(/\/c\/[A-Za-z0-9]+$/, { timeout: 60_000 })
    expect(await page.textContent('.notice[role=status]')).toContain('was not sent again')
    expect(new URL(page.url()).pathname).not.toBe(`/c/${id}`)
  })

  it('a new version from the canvas page, then the changed lines between the two', async () => {
    const id = await canvas('story.md', '# Story\n\nOnce upon a time.\nThe end.\n')
    await page.goto(`${server.url}/c/${id}`)
    await page.setInputFiles('#upload-file', {
      name: 'whatever.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from('# Story\n\nOnce upon a later time.\nThe end.\n'),
    })
    const upload = page.locator('form[data-upload] button[type=submit]')
    await upload.scrollIntoViewIfNeeded()
    await upload.click()
    // The upload lands on this same page again, with the message.
    await page.locator('.notice[role=status]', { hasText: 'is now at version 2' }).waitFor()
    expect(await page.textContent('.bar .title')).toBe('story.md')
    const changes = page.locator('#version-2 a', { hasText: 'Changes' })
    expect(await changes.getAttribute('href')).toBe(`/c/${id}/diff?from=1&to=2`)
    await page.goto(`${server.url}/c/${id}/diff?from=1&to=2`)
    expect(await page.locator('.diff-lines .line.del').innerText()).toContain('Once upon a time.')
    const added = page.locator('.diff-lines .line.add')
    expect(await added.innerText()).toContain('Once upon a later time.')
    expect(await added.count()).toBe(1)
    // The word that changed, marked; the line's number in the new version beside it.
    expect(await added.locator('ins').innerText()).toBe('later ')
    expect(await added.locator('.num.new').innerText()).toBe('3')
  })
})

describe('live canvases', () => {
  // The promise is 2 s from a write to its viewers; `npm run bench:live` measures the write to 500
  // viewers' sockets (BENCHMARKS.md). Here, what the pages do, with time to spare: a timing asserted
  // in a test fails on a busy machine rather than on a slow page.
  it('a viewer and a share page show a new version after svc push --id, without a reload, and say when their link ends', async () => {
    const home = mkdtempSync(join(tmpdir(), 'canvas-live-'))
    try {
      expect((await svc(home, ['login', '--token', key, '--endpoint', server.url])).code).toBe(0)
      const file = join(home, 'live.md')
      writeFileSync(file, '# One\n')
      const pushed = await svc(home, ['push', file, '--json'])
      const id = JSON.parse(pushed.stdout).canvas_id as string
      const link = (await (
        await api(`/v1/canvases/${id}/shares`, { method: 'POST', json: {} })
      ).json()) as any
      const stranger = await browser.newPerson()
      try {
        const reader = await stranger.context.newPage()
        const pages = [page, reader]
        await page.goto(`${server.url}/c/${id}`)
        await reader.goto(`${server.url}/s/${link.token}`)
        const navigations = [0, 0]
        pages.forEach((p, i) =>
          p.on('framenavigated', (frame) => {
            if (frame === p.mainFrame()) navigations[i]++
          }),
        )
        for (const p of pages) await p.locator('[data-live-state=open]').waitFor()
        writeFileSync(file, '# Two\n')
        expect((await svc(home, ['push', file, '--id', id])).code).toBe(0)
        for (const p of pages) {
          await p.locator('[data-live-status]', { hasText: 'Updated to v2.' }).waitFor({
            timeout: 10_000,
          })
          // The page says so as it points its frame at the new version, which then loads.
          await expect.poll(() => frameText(p, 'h1'), { timeout: 10_000 }).toBe('Two')
        }
        expect(navigations).toEqual([0, 0])
        // Revoked: the reader's page says so, without a reload.
        await api(`/v1/canvases/${id}/shares/${link.token}`, { method: 'DELETE' })
        await reader
          .locator('[data-live-status]', { hasText: 'This link was revoked.' })
          .waitFor({ timeout: 10_000 })
        // Expired: a link that lives a few seconds says so when it ends, without a reload.
        const brief = (await (
          await api(`/v1/canvases/${id}/shares`, { method: 'POST', json: { expires_in: '4s' } })
        ).json()) as any
        await reader.goto(`${server.url}/s/${brief.token}`)
        await reader.locator('[data-live-state=open]').waitFor()
        await reader
          .locator('[data-live-status]', { hasText: 'This link has expired.' })
          .waitFor({ timeout: 15_000 })
        // Closed for good: the page does not reconnect to a link that has ended.
        await reader.locator('[data-live-state=closed]').waitFor()
      } finally {
        await stranger.close()
      }
    } finally {
      rmSync(home, { recursive: true, force: true })
    }
  })
})

// Every page at a phone's width and a laptop's, light and dark: nothing wider than the window,
// the buttons of a row of the same height, and no serious or critical accessibility violation
// (axe-core), signed in and out.
