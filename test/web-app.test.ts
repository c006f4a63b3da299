import { env } from 'cloudflare:test'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { percentEncode, wild } from './support/hostile-values'
import {
  bytesOf,
  call,
  csrfOf,
  formPost,
  json,
  newAccount,
  newCanvas,
  sessionCookie,
  sha256,
  upload,
  type Account,
} from './support/api'
import { withinOneWindow } from './support/limit-window'
import { countRows } from './support/state'
import { DIFF_WORST_CASES } from './support/worst-cases'
import { runs } from './support/runs'
import { keyIn, newTeam } from './support/teams'

// The web app for people at the HTTP level: publishing from the browser (the script's JSON routes
// and the plain form), post-redirect-get with a message that shows once, the dashboard's order
// and search, the owner's canvas page with its versions, diff and share links. The browser tests
// (test/node/web.test.ts) drive the same pages in Chromium.

/** The Set-Cookie of the message an action left for the next page, as a Cookie pair. */
function flashCookie(res: Response) {
  const match = /(?:^|, )(canvas_flash=[^;]*)/.exec(res.headers.get('Set-Cookie') ?? '')
  return match?.[1]
}

/** A form post of the owner's, then the page its redirect lands on, with the message cookie. */
async function postThenGet(account: Account, path: string, fields: Record<string, string>) {
  const csrf = await csrfOf(account.cookie)
  const posted = await call(path, {
    ...formPost({ _csrf: csrf, ...fields }),
    cookie: account.cookie,
  })
  expect(posted.status, path).toBe(302)
  const location = posted.headers.get('Location')!
  const flash = flashCookie(posted)
  const page = await call(location, { cookie: [account.cookie, flash].filter(Boolean).join('; ') })
  return { posted, location, flash, page, html: await page.text() }
}

async function scriptCall(account: Account, path: string, body: unknown) {
  return call(path, {
    method: 'POST',
    json: body,
    cookie: account.cookie,
    headers: { Accept: 'application/json', 'X-CSRF-Token': await csrfOf(account.cookie) },
  })
}

describe('publishing from the browser', () => {
  it('presign, PUT, finish: a new canvas, then a new version, the bytes never through a page', async () => {
    const account = await newAccount()
    const content = bytesOf('<h1>from the browser</h1>')
    const meta = {
      sha256: await sha256(content),
      ext: 'html',
      size: content.byteLength,
      mime: 'text/html',
    }
    const presigned = await json(await scriptCall(account, '/upload/presign', meta))
    expect(presigned.exists).toBe(false)
    const put = await call(presigned.upload_url, {
      method: 'PUT',
      body: content,
      headers: { ...presigned.headers, Origin: 'http://elsewhere.test' },
    })
    expect(put.status).toBe(200)
    // A page on another origin (CONTENT_URL) may send it: the signature is the credential.
    expect(put.headers.get('Access-Control-Allow-Origin')).toBe('*')
    const finished = await scriptCall(account, '/upload/finish', { ...meta, name: 'report.html' })
    expect(finished.status).toBe(200)
    const { location } = await json(finished)
    expect(location).toMatch(/^\/c\/[A-Za-z0-9]+$/)
    const flash = flashCookie(finished)
    const page = await call(location, { cookie: `${account.cookie}; ${flash}` })
    const html = await page.text()
    expect(html).toContain('“report.html” is published.')
    // The message is taken: the page clears its cookie.
    expect(page.headers.get('Set-Cookie')).toMatch(/canvas_flash=;.*Max-Age=0/)

    // The same file again as a new version: stored already, so no PUT is asked for.
    const canvasId = location.slice(3)
    const again = await json(await scriptCall(account, '/upload/presign', meta))
    expect(again.exists).toBe(true)
    const version = await scriptCall(account, '/upload/finish', {
      ...meta,
      name: 'renamed.html',
      canvas_id: canvasId,
    })
    expect((await json(version)).location).toBe(location)
    const canvas = await json(await call(`/v1/canvases/${canvasId}`, { key: account.key }))
    expect(canvas).toMatchObject({ version: 2, title: 'report.html' })
    const message = await call(location, { cookie: `${account.cookie}; ${flashCookie(version)}` })
    expect(await message.text()).toContain('is now at version 2. The same file was stored already')
  })

  it('the script routes need the CSRF header and a session, and answer errors as JSON', async () => {
    const account = await newAccount()
    const meta = { sha256: 'a'.repeat(64), ext: 'txt', size: 3, mime: 'text/plain' }
    const noHeader = await call('/upload/presign', {
      method: 'POST',
      json: meta,
      cookie: account.cookie,
    })
    expect(noHeader.status).toBe(403)
    expect((await json(noHeader)).error.code).toBe('forbidden')
    const unfinished = await scriptCall(account, '/upload/finish', { ...meta, name: 'x.txt' })
    expect(unfinished.status).toBe(400)
    expect((await json(unfinished)).error.code).toBe('upload_incomplete')
    const other = await newAccount()
    const theirs = await newCanvas(other.key, 'not yours')
    const content = bytesOf('abc')
    const mine = { sha256: await sha256(content), ext: 'txt', size: 3, mime: 'text/plain' }
    const presigned = await json(await scriptCall(account, '/upload/presign', mine))
    await call(presigned.upload_url, { method: 'PUT', body: content })
    const into = await scriptCall(account, '/upload/finish', {
      ...mine,
      name: 'x.txt',
      canvas_id: theirs.canvas_id,
    })
    expect(into.status).toBe(404)
    expect((await json(into)).error.code).toBe('canvas_not_found')
    const anonymous = await call('/upload/presign', { method: 'POST', json: meta })
    expect(anonymous.status).toBe(302)
    expect(
      await countRows('SELECT COUNT(*) AS n FROM canvases WHERE canvas_id = ?', theirs.canvas_id),
    ).toBe(1)
    const after = await json(await call(`/v1/canvases/${theirs.canvas_id}`, { key: other.key }))
    expect(after.version).toBe(1)
  })

  it('a folder as a site: each file finalized, then one finish with the paths; refusals in words', async () => {
    const account = await newAccount()
    const items = []
    for (const [path, text, ext, mime] of [
      ['index.html', '<link rel=stylesheet href=css/a.css><h1>Site</h1>', 'html', 'text/html'],
      ['css/a.css', 'h1 { color: teal }', 'css', 'text/css'],
    ]) {
      const content = bytesOf(text)
      const meta = { sha256: await sha256(content), ext, size: content.byteLength, mime }
      const presigned = await json(await scriptCall(account, '/upload/presign', meta))
      await call(presigned.upload_url, { method: 'PUT', body: content, headers: presigned.headers })
      const noHeader = await call('/upload/finalize', {
        method: 'POST',
        json: meta,
        cookie: account.cookie,
      })
      expect(noHeader.status).toBe(403)
      const ready = await scriptCall(account, '/upload/finalize', meta)
      expect(ready.status).toBe(200)
      items.push({ path, file_id: (await json(ready)).file_id })
    }
    const before = await countRows('SELECT COUNT(*) AS n FROM canvases')
    const clash = await scriptCall(account, '/upload/finish', {
      name: 'site',
      items: [...items, { path: 'INDEX.html', file_id: items[0].file_id }],
    })
    expect(clash.status).toBe(400)
    const { message } = (await json(clash)).error
    expect(message).toMatch(/^[A-Z]/)
    expect(message).not.toMatch(/^items/)
    expect(await countRows('SELECT COUNT(*) AS n FROM canvases')).toBe(before)

    const finished = await scriptCall(account, '/upload/finish', { name: 'my-site', items })
    expect(finished.status).toBe(200)
    const { location } = await json(finished)
    const canvas = await json(await call(`/v1/canvases/${location.slice(3)}`, { key: account.key }))
    expect(canvas).toMatchObject({ title: 'my-site', version: 1 })
    const page = await call(location, { cookie: `${account.cookie}; ${flashCookie(finished)}` })
    expect(await page.text()).toContain('“my-site” is published: a site of 2 files.')
  })

  it('without JavaScript, a form post up to MAX_DIRECT_UPLOAD_BYTES; above it a page says why', async () => {
    const account = await newAccount()
    const csrf = await csrfOf(account.cookie)
    const send = (file: File, extra: Record<string, string> = {}, vars = {}) => {
      const form = new FormData()
      form.set('_csrf', csrf)
      for (const [name, value] of Object.entries(extra)) form.set(name, value)
      form.set('file', file)
      return call('/upload', { method: 'POST', body: form, cookie: account.cookie, env: vars })
    }
    const res = await send(new File(['# Notes'], 'notes.md', { type: 'text/markdown' }))
    expect(res.status).toBe(302)
    const canvasId = res.headers.get('Location')!.slice(3)
    const canvas = await json(await call(`/v1/canvases/${canvasId}`, { key: account.key }))
    expect(canvas).toMatchObject({ title: 'notes.md', ext: 'md', renderer_id: 'markdown' })
    const version = await send(new File(['# Notes 2'], 'other.md'), { canvas_id: canvasId })
    expect(version.headers.get('Location')).toBe(`/c/${canvasId}`)
    const big = await send(
      new File(['x'.repeat(2048)], 'big.txt'),
      {},
      { MAX_DIRECT_UPLOAD_BYTES: '1024' },
    )
    expect(big.status).toBe(413)
    expect(await big.text()).toContain('the most a page sends without JavaScript')
    const none = await send(new File([], ''))
    expect(none.status).toBe(400)
    const forged = new FormData()
    forged.set('_csrf', 'x'.repeat(32))
    forged.set('file', new File(['x'], 'x.txt'))
    const refused = await call('/upload', { method: 'POST', body: forged, cookie: account.cookie })
    expect(refused.status).toBe(403)
    const mine = 'SELECT COUNT(*) AS n FROM canvases WHERE owner_user_id = ?'
    expect(await countRows(mine, account.userId)).toBe(1)
  })
})

describe('post, redirect, get', () => {
  it('every action ends on a page that says what it did, once', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'hello', { title: 'Quarterly' })
    const id = canvas.canvas_id
    const permanent = await postThenGet(account, `/c/${id}/permanent`, {})
    expect(permanent.location).toBe(`/c/${id}`)
    expect(permanent.html).toContain('“Quarterly” is permanent: it will not expire.')
    const fromDashboard = await postThenGet(account, `/c/${id}/visibility`, {
      visibility: 'public',
      back: 'dashboard',
    })
    expect(fromDashboard.location).toBe(`/#canvas-${id}`)
    expect(fromDashboard.html).toContain('“Quarterly” is public')
    // A reload: no message, nothing done again.
    const reload = await call(fromDashboard.location, { cookie: account.cookie })
    expect(await reload.text()).not.toContain('is public:')
    const shared = await postThenGet(account, `/c/${id}/share`, {
      expires_in: '7d',
      max_views: '5',
    })
    expect(shared.html).toContain('Share link created.')
    // Permanent by now: the link lasts what was asked.
    expect(shared.html).toMatch(/can open this canvas until \d+ \w+ \d{4}, \d\d:\d\d UTC, unless/)
    const token = /\/s\/([\w-]+)<\/code>/.exec(shared.html)![1]
    expect(await countRows('SELECT COUNT(*) AS n FROM share_links WHERE canvas_id = ?', id)).toBe(1)
    const revoked = await postThenGet(account, `/c/${id}/shares/${token}/revoke`, {})
    expect(revoked.html).toContain(`The link …${token.slice(-6)} is revoked`)
    const twice = await postThenGet(account, `/c/${id}/shares/${token}/revoke`, {})
    expect(twice.html).toContain('That link was revoked already.')
    const deleted = await postThenGet(account, `/c/${id}/delete`, {})
    expect(deleted.location).toBe('/')
    expect(deleted.html).toContain('“Quarterly” was deleted')
  })

  it('a link on a temporary canvas says it ends with the canvas, where it is made and after', async () => {
    const account = await newAccount()
    const id = (await newCanvas(account.key, 'for a day', { title: 'Daily' })).canvas_id
    const page = await (await call(`/c/${id}`, { cookie: account.cookie })).text()
    expect(page).toMatch(/This canvas expires in 2[34] h \(.+ UTC\), and its links with it/)
    expect(page).toContain('When the canvas expires</option>')
    const never = await postThenGet(account, `/c/${id}/share`, { expires_in: '' })
    expect(never.html).toMatch(
      /Anyone with it can open this canvas, but the canvas expires in 2[34] h \(.+ UTC\) and the link with it: make the canvas permanent to keep the link\./,
    )
    // A link shorter than the canvas's life says its own end.
    const hour = await postThenGet(account, `/c/${id}/share`, { expires_in: '1h' })
    expect(hour.html).toMatch(/can open this canvas until .+ UTC, unless it is revoked first\./)
    // Permanent: the note and the button go, and "Never" is never again.
    await postThenGet(account, `/c/${id}/permanent`, {})
    const kept = await (await call(`/c/${id}`, { cookie: account.cookie })).text()
    expect(kept).not.toContain('and its links with it')
    expect(kept).toContain('>Never</option>')
  })

  it('a new API key shows once, on the page the redirect lands on; a reload makes no second', async () => {
    const account = await newAccount()
    const created = await postThenGet(account, '/settings/keys', { name: 'laptop', scope: 'read' })
    expect(created.location).toBe('/settings')
    const key = /<code class="block" id="copy-0">(svc_\w+)<\/code>/.exec(created.html)![1]
    expect(created.html).toContain(`svc login --token ${key} --endpoint http://canvas.test`)
    expect((await call('/v1/canvases', { key })).status).toBe(200)
    const reload = await call('/settings', { cookie: account.cookie })
    expect(await reload.text()).not.toContain(key)
    const laptop = /id="key-(\w+)"><td class="primary-cell">laptop</.exec(created.html)![1]
    const named = 'SELECT COUNT(*) AS n FROM api_keys WHERE key_id = ? AND name = ?'
    expect(await countRows(named, laptop, 'laptop')).toBe(1)
    expect([...created.html.matchAll(/<tr id="key-\w+"/g)].length).toBe(2)
    const revoked = await postThenGet(account, `/settings/keys/${laptop}/revoke`, {})
    expect(revoked.html).toContain('“laptop” is revoked')
    expect((await call('/v1/canvases', { key })).status).toBe(401)
  })

  it('Settings lists a person’s keys in every workspace, each with where it acts, and ends any', async () => {
    const account = await newAccount()
    const team = await newTeam(account, 'Acme research')
    const key = await keyIn(account, team, 'team laptop')
    const stranger = await newAccount()
    const theirs = await newTeam(stranger, 'Elsewhere')
    const page = await (await call('/settings', { cookie: account.cookie })).text()
    const row =
      /<tr id="key-(\w+)"><td class="primary-cell">team laptop<\/td><td data-label="Workspace"><bdi dir="auto">Acme research</.exec(
        page,
      )
    expect(row, 'the team key, named with its workspace').not.toBeNull()
    expect(page).toContain(`name="workspace_id" value="${team}"`)
    // A workspace the person is not in opens nothing, and the key stays.
    const forged = await postThenGet(account, `/settings/keys/${row![1]}/revoke`, {
      workspace_id: theirs,
    })
    expect(forged.html).toContain('That key was revoked already.')
    expect((await call('/v1/canvases', { key })).status).toBe(200)
    // From the personal workspace, the team's key ends: the form names where it acts.
    const revoked = await postThenGet(account, `/settings/keys/${row![1]}/revoke`, {
      workspace_id: team,
    })
    expect(revoked.html).toContain('“team laptop” is revoked')
    expect((await call('/v1/canvases', { key })).status).toBe(401)
    expect(revoked.html).not.toContain('team laptop</td>')
  })

  it('the install line says svc login takes the address when the package cannot name it', async () => {
    const account = await newAccount()
    // Reached by a name a Host header could have chosen, and no APP_URL: the package names none.
    const unnamed = await (await call('/settings', { cookie: account.cookie })).text()
    expect(unnamed).toContain('npm install -g http://canvas.test/cli/svc.tgz')
    expect(unnamed).toContain('<code>svc login --endpoint http://canvas.test</code>')
    const named = await (
      await call('/settings', {
        cookie: account.cookie,
        env: { APP_URL: 'https://canvas.example.com' },
      })
    ).text()
    expect(named).toContain('npm install -g https://canvas.example.com/cli/svc.tgz')
    expect(named).toContain('<code>svc login</code>')
  })

  it('a message cookie that was tampered with is ignored, never shown as markup', async () => {
    const account = await newAccount()
    // A message signed for one session is not shown to another (a shared browser, a planted cookie).
    const canvas = await newCanvas(account.key, 'x', { title: 'Mine' })
    const { flash } = await postThenGet(account, `/c/${canvas.canvas_id}/permanent`, {})
    const other = await newAccount()
    const elsewhere = await call('/', { cookie: `${other.cookie}; ${flash}` })
    expect(await elsewhere.text()).not.toContain('“Mine” is permanent')
    const mine = await call('/', { cookie: `${account.cookie}; ${flash}` })
    expect(await mine.text()).toContain('“Mine” is permanent')
    for (const value of [
      encodeURIComponent(JSON.stringify({ tone: 'ok', text: '<script>alert(1)</script>' })),
      encodeURIComponent(JSON.stringify({ tone: 'evil', text: 'x' })),
      encodeURIComponent(JSON.stringify({ tone: 'ok', text: 'x'.repeat(5000) })),
      '%7B%22tone',
      'not json at all',
    ]) {
      const page = await call('/', { cookie: `${account.cookie}; canvas_flash=${value}` })
      expect(page.status).toBe(200)
      const html = await page.text()
      expect(html).not.toContain('<script>alert')
      expect(html).not.toContain('xxxxxxxxxx')
    }
  })
})

describe('the dashboard', () => {
  it('lists the most recently changed first, and finds by words of titles and text', async () => {
    const account = await newAccount()
    const older = await newCanvas(account.key, 'a', { title: 'Report 50% done' })
    await newCanvas(account.key, 'the <b>final</b> figures', { title: 'Report_final' })
    await newCanvas(account.key, 'c', { title: 'data.json' })
    // A new version moves the oldest canvas to the top.
    const csrf = await csrfOf(account.cookie)
    const form = new FormData()
    form.set('_csrf', csrf)
    form.set('canvas_id', older.canvas_id)
    form.set('file', new File(['a2'], 'a.txt'))
    await call('/upload', { method: 'POST', body: form, cookie: account.cookie })
    const page = async (query = '') => (await call(`/${query}`, { cookie: account.cookie })).text()
    const titles = async (query = '') =>
      [...(await page(query)).matchAll(/<a class="title-link" href="\/c\/\w+">([^<]+)<\/a>/g)].map(
        (m) => m[1],
      )
    expect(await titles()).toEqual(['Report 50% done', 'data.json', 'Report_final'])
    expect((await titles('?q=report')).sort()).toEqual(['Report 50% done', 'Report_final'])
    expect(await titles('?q=50')).toEqual(['Report 50% done'])
    // By a word of the text, shown with the words found marked, the text escaped.
    expect(await titles('?q=figures')).toEqual(['Report_final'])
    expect(await page('?q=figures')).toContain(
      '<p class="snippet">the &lt;b&gt;final&lt;/b&gt; <mark>figures</mark></p>',
    )
    expect(await titles('?q=fig*&type=txt')).toEqual(['Report_final'])
    expect(await titles('?q=figures&type=md')).toEqual([])
    expect(await titles('?q=nothing')).toEqual([])
    expect(await titles(`?q=${encodeURIComponent("' OR 1=1 --")}`)).toEqual([])
    // What is not a search says why, and lists nothing.
    for (const [query, reason] of [
      ['%25', 'has no letters or digits'],
      ['%00', 'holds a control character'],
      ['%22open', 'a quote is opened and never closed'],
    ]) {
      const html = await page(`?q=${query}`)
      expect(html).toContain(`Search: ${reason}`)
      expect(await titles(`?q=${query}`)).toEqual([])
    }
  })

  it('answers any search typed with its page, never an error or another’s canvas', async () => {
    const mine = await newAccount()
    const theirs = await newAccount()
    await newCanvas(theirs.key, 'a b c 1 2 3 x y z', { title: 'Theirs x' })
    await fc.assert(
      fc.asyncProperty(wild, async (q) => {
        const res = await call(`/?q=${percentEncode(q)}`, { cookie: mine.cookie })
        expect(res.status, q).toBe(200)
        expect(await res.text()).not.toContain('Theirs x')
      }),
      { numRuns: runs(60) },
    )
  })
})

describe("the owner's canvas page", () => {
  it('shows versions with sizes, share links with their limits, and the whole share dialog', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'one', { title: 'Notes', permanent: true })
    const id = canvas.canvas_id
    await postThenGet(account, `/c/${id}/share`, {
      expires_in: '24h',
      password: 'secret',
      max_views: '10',
      version: '1',
      token: 'my-own-link',
    })
    const html = await (await call(`/c/${id}`, { cookie: account.cookie })).text()
    expect(html).toContain('http://canvas.test/s/my-own-link')
    expect(html).toContain('0 of 10')
    expect(html).toContain('v1 only')
    expect(html).toMatch(/data-label="Password">yes/)
    for (const field of ['expires_in', 'password', 'max_views', 'version', 'token']) {
      expect(html).toContain(`name="${field}"`)
    }
    expect(html).toMatch(/id="version-1".*3 B/)
    // A taken link name comes back on the form with what was typed, never the password.
    const taken = await call(`/c/${id}/share`, {
      ...formPost({
        _csrf: await csrfOf(account.cookie),
        token: 'my-own-link',
        password: 'pw-typed',
      }),
      cookie: account.cookie,
    })
    expect(taken.status).toBe(409)
    const again = await taken.text()
    expect(again).toContain('value="my-own-link"')
    expect(again).not.toContain('pw-typed')
    // Revoking all asks first (the button is inside a closed dialog) and then says how many.
    await postThenGet(account, `/c/${id}/share`, {})
    const all = await postThenGet(account, `/c/${id}/unshare`, {})
    expect(all.html).toContain('Revoked 2 share links')
  })

  it('a visitor of a public canvas sees its latest version only, with no owner tools', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'v1 text', { title: 'Open notes' })
    const id = canvas.canvas_id
    await postThenGet(account, `/c/${id}/visibility`, { visibility: 'public' })
    const form = new FormData()
    form.set('_csrf', await csrfOf(account.cookie))
    form.set('canvas_id', id)
    form.set('file', new File(['v2 text'], 'notes.txt'))
    await call('/upload', { method: 'POST', body: form, cookie: account.cookie })
    const html = await (await call(`/c/${id}?v=1`, {})).text()
    expect(html).toMatch(/<span class="chip" data-live-version[^>]*>v2<\/span>/)
    expect(html).not.toContain('name="v"')
    expect(html).not.toContain('_csrf')
    expect(html).not.toMatch(/\/_frame\/\w+\/1\?/)
    const download = await call(`/c/${id}/download?v=1`, {})
    expect(download.status).toBe(302)
    expect(download.headers.get('Location')).toContain(
      await sha256(bytesOf('v2 text')).then((h) => h.slice(0, 16)),
    )
  })

  it('compares two versions of a text canvas line by line, and refuses what is not text', async () => {
    const account = await newAccount()
    const lines = (n: number, changed: number) =>
      Array.from({ length: n }, (_, i) => (i === changed ? `line ${i} changed` : `line ${i}`)).join(
        '\n',
      )
    const canvas = await newCanvas(account.key, lines(40, -1), { title: 'Long', ext: 'md' })
    const id = canvas.canvas_id
    const form = new FormData()
    form.set('_csrf', await csrfOf(account.cookie))
    form.set('canvas_id', id)
    form.set('file', new File([lines(40, 20)], 'long.md'))
    await call('/upload', { method: 'POST', body: form, cookie: account.cookie })
    const res = await call(`/c/${id}/diff?from=1&to=2`, { cookie: account.cookie })
    expect(res.status).toBe(200)
    const html = await res.text()
    expect(html).toContain('1 line added, 1 line removed.')
    // Each line with its numbers: a removed one in the old version, an added one in the new, a
    // kept one in both; the word that changed marked.
    expect(html).toMatch(
      /<div class="line del"><span class="num old">21<\/span><span class="text">(?:(?!<div).)*line 20<\/span><\/div>/,
    )
    expect(html).toMatch(
      /<div class="line add"><span class="num new">21<\/span><span class="text">(?:(?!<div).)*line 20<ins> changed<\/ins><\/span><\/div>/,
    )
    expect(html).toMatch(
      /<div class="line same"><span class="num old">18<\/span><span class="num new">18<\/span><span class="text">(?:(?!<div).)*line 17<\/span>/,
    )
    // Three lines of context on each side, not the whole file.
    expect(html).toContain('line 17')
    expect(html).not.toContain('line 16<')
    expect(html).toContain('Line 18 of v1, line 18 of v2')
    const other = await newAccount()
    expect((await call(`/c/${id}/diff?from=1&to=2`, { cookie: other.cookie })).status).toBe(404)
    expect((await call(`/c/${id}/diff?from=1&to=3`, { cookie: account.cookie })).status).toBe(404)
    expect((await call(`/c/${id}/diff?from=x&to=2`, { cookie: account.cookie })).status).toBe(400)

    const binary = await newCanvas(account.key, 'x', { title: 'Bin', ext: 'bin' })
    const bytes = new Uint8Array([0, 1, 2, 255])
    const binForm = new FormData()
    binForm.set('_csrf', await csrfOf(account.cookie))
    binForm.set('canvas_id', binary.canvas_id)
    binForm.set('file', new File([bytes], 'x.bin'))
    await call('/upload', { method: 'POST', body: binForm, cookie: account.cookie })
    const refused = await call(`/c/${binary.canvas_id}/diff?from=1&to=2`, {
      cookie: account.cookie,
    })
    expect(await refused.text()).toContain('version 2 is not text')
  })

  it('a diff too costly to search says so, and each session has a budget of diffs', async () => {
    const account = await newAccount()
    // 20,000 lines each changed near its end: the search gives up within its bound of work.
    const [before, after] = DIFF_WORST_CASES[0].make()
    const canvas = await newCanvas(account.key, before, { title: 'Worst' })
    const id = canvas.canvas_id
    const fileId = await upload(account.key, bytesOf(after))
    await call(`/v1/canvases/${id}`, {
      method: 'PATCH',
      key: account.key,
      json: { file_id: fileId },
    })
    const worst = await call(`/c/${id}/diff?from=1&to=2`, { cookie: account.cookie })
    expect(worst.status).toBe(200)
    expect(await worst.text()).toContain(
      'These versions cannot be compared: the two versions differ too much to show line by line.',
    )
    const limited = { DIFF_LIMITER: env.AUTH_LIMITER_SMALL }
    // Each time in a new session of the same person: each session has its own budget.
    const statuses = async () => {
      const cookie = await newSession(account)
      const seen: number[] = []
      for (let i = 0; i < 6; i++) {
        const res = await call(`/c/${id}/diff?from=1&to=1`, { cookie, env: limited })
        seen.push(res.status)
        if (res.status === 429) {
          expect(res.headers.get('Retry-After')).toBe('60')
          expect(res.headers.get('Content-Type')).toContain('text/html')
          expect(await res.text()).toContain('Too many attempts')
        }
      }
      return seen
    }
    const budget = [200, 200, 200, 200, 200, 429]
    await withinOneWindow(async () => {
      expect([await statuses(), await statuses()]).toEqual([budget, budget])
    })
  })
})

/** A new session of the person, by the login form's route: each session has a budget of diffs. */
async function newSession(account: Account) {
  const login = await call('/auth/login', {
    method: 'POST',
    json: { email: account.email, password: account.password },
  })
  return sessionCookie(login)
}

/** A canvas of `name` with two versions, `v1` then `v2`, and its diff page's path. */
async function twoVersions(account: Account, ext: string, v1: string, v2: string) {
  const mime = ext === 'html' ? 'text/html' : ext === 'md' ? 'text/markdown' : 'text/plain'
  const canvas = await newCanvas(account.key, v1, { title: `Two.${ext}`, ext, mime })
  const fileId = await upload(account.key, bytesOf(v2), ext, mime)
  const patched = await call(`/v1/canvases/${canvas.canvas_id}`, {
    method: 'PATCH',
    key: account.key,
    json: { file_id: fileId },
  })
  expect(patched.status).toBe(200)
  return { id: canvas.canvas_id as string, diff: `/c/${canvas.canvas_id}/diff?from=1&to=2` }
}

/** The page's diff markup: from its lines' container to the end of the page's main. */
const linesOf = (html: string) =>
  html.slice(html.indexOf('<div class="diff-lines'), html.indexOf('</main>'))

describe('the diff page', () => {
  it('marks the one word that changed in a one-line HTML file', async () => {
    const account = await newAccount()
    const { diff } = await twoVersions(
      account,
      'html',
      '<p>The quick brown fox jumps over the lazy dog.</p>',
      '<p>The quick red fox jumps over the lazy dog.</p>',
    )
    const html = linesOf(await (await call(diff, { cookie: account.cookie })).text())
    expect(html.match(/<del>/g)).toHaveLength(1)
    expect(html.match(/<ins>/g)).toHaveLength(1)
    expect(html).toContain(
      '&lt;p&gt;The quick <del>brown</del> fox jumps over the lazy dog.&lt;/p&gt;',
    )
    expect(html).toContain(
      '&lt;p&gt;The quick <ins>red</ins> fox jumps over the lazy dog.&lt;/p&gt;',
    )
  })

  it('lays the lines out by the screen, or side by side or unified as chosen, by a link', async () => {
    const account = await newAccount()
    const { diff } = await twoVersions(account, 'txt', 'a\nb\nc\n', 'a\nB\nc\nd\n')
    const page = async (query: string) => {
      const res = await call(diff + query, { cookie: account.cookie })
      expect(res.status, query).toBe(200)
      return res.text()
    }
    const auto = await page('')
    expect(auto).toContain('<div class="diff-lines auto">')
    // Nothing chosen: both links, neither current; the screen's width picks (assets/diff.css).
    expect(auto).toMatch(
      /<a class="btn small when-wide" href="[^"]*&amp;view=split">Side by side<\/a>/,
    )
    expect(auto).toMatch(
      /<a class="btn small when-narrow" href="[^"]*&amp;view=unified">Unified<\/a>/,
    )
    expect(auto).not.toContain('aria-current')
    // A text canvas has no rendered view.
    expect(auto).not.toContain('view=rendered')
    for (const view of ['split', 'unified']) {
      const html = await page(`&view=${view}`)
      expect(html).toContain(`<div class="diff-lines ${view}">`)
      expect(html).toMatch(
        new RegExp(`<a class="btn small current" href="[^"]*view=${view}" aria-current="page">`),
      )
      // The same lines whichever the layout: the kept ones with a copy for the right-hand side.
      expect(linesOf(html).replace(view, 'auto')).toBe(linesOf(auto))
    }
    expect(linesOf(auto)).toContain(
      '<div class="block"><div class="line del"><span class="num old">2</span>',
    )
    expect(linesOf(auto)).toMatch(
      /<div class="line same"><span class="num old">3<\/span><span class="num new">3<\/span><span class="text"><span class="sign" aria-hidden="true"> <\/span>c<\/span><span class="text copy" aria-hidden="true"><span class="sign"> <\/span>c<\/span><\/div>/,
    )
    const bad = await call(`${diff}&view=sideways`, { cookie: account.cookie })
    expect(bad.status).toBe(400)
    expect(await bad.text()).toContain('The view must be one of split, unified, rendered.')
  })

  for (const [ext, v1, v2, inserted, deleted] of [
    [
      'md',
      '# Notes\n\nThe plan is simple.\n\n- one\n- two\n\n<script>parent.hacked = 1</script>\n',
      '# Notes\n\nThe plan is bold.\n\n- one\n- two\n- three\n\n<script>parent.hacked = 1</script>\n',
      ['<ins>bold</ins>', '<li><ins>three</ins></li>'],
      ['<del>simple</del>'],
    ],
    [
      'html',
      '<h1>Notes</h1><p>The plan is simple.</p><ul><li>one</li><li>two</li></ul><script>parent.hacked = 1</script>',
      '<h1>Notes</h1><p>The plan is bold.</p><ul><li>one</li><li>two</li><li>three</li></ul><script>parent.hacked = 1</script>',
      // The document's own markup, the new version's: a list item added is a list item.
      [
        '<h1>Notes</h1>',
        '<p>The plan is <del>simple</del><ins>bold</ins>.</p>',
        '<li><ins>three</ins></li>',
      ],
      ['<del>simple</del>'],
    ],
  ] as const) {
    it(`shows a ${ext} canvas's changes rendered, marked, in a frame that runs no script`, async () => {
      const account = await newAccount()
      const { id, diff } = await twoVersions(account, ext, v1, v2)
      const source = await (await call(diff, { cookie: account.cookie })).text()
      expect(source).toMatch(/<a class="btn small" href="[^"]*&amp;view=rendered">Rendered<\/a>/)
      // The canvas's markup is text on the app's page, never markup.
      expect(source).not.toContain('<script>parent')
      const page = await (await call(`${diff}&view=rendered`, { cookie: account.cookie })).text()
      expect(page).not.toContain('<script>parent')
      expect(page).not.toContain('class="diff-lines')
      const frame = /<iframe src="([^"]+)" title="[^"]*" sandbox="([^"]*)"/.exec(page)!
      expect(frame[1]).toContain(`/_frame/${id}/1-2/changes?`)
      expect(frame[2]).not.toContain('allow-scripts')
      expect(frame[2]).not.toContain('allow-same-origin')
      const res = await call(frame[1].replaceAll('&amp;', '&'))
      expect(res.status).toBe(200)
      const csp = res.headers.get('Content-Security-Policy')!
      expect(csp).toMatch(/^sandbox /)
      expect(csp).not.toContain('allow-scripts')
      expect(csp).not.toContain('allow-same-origin')
      expect(csp).toContain("default-src 'none'")
      const body = await res.text()
      for (const mark of [...inserted, ...deleted]) expect(body).toContain(mark)
      expect(body).not.toMatch(/<script/i)
      expect(body).not.toMatch(/[\uE000-\uE003]/)
      // Only the pair signed: another pair, or the same pair on another canvas, is refused.
      const other = frame[1].replaceAll('&amp;', '&').replace('/1-2/', '/2-1/')
      expect((await call(other)).status).toBe(403)
    })
  }

  it("the rendered view draws on the session's budget of diffs", async () => {
    const account = await newAccount()
    const { diff } = await twoVersions(account, 'md', 'one\n', 'two\n')
    const limited = { DIFF_LIMITER: env.AUTH_LIMITER_SMALL }
    // A new session each run: the frame's address carries the session whose budget it draws on.
    await withinOneWindow(async () => {
      const cookie = await newSession(account)
      const page = await (await call(`${diff}&view=rendered`, { cookie })).text()
      const src = /<iframe src="([^"]+)"/.exec(page)![1].replaceAll('&amp;', '&')
      const statuses = []
      for (let i = 0; i < 6; i++) statuses.push((await call(src, { env: limited })).status)
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429])
    })
  })
})

describe('accounts', () => {
  it('signup says at once when it is closed, and states the password minimum when open', async () => {
    await newAccount()
    const closed = await call('/signup', { env: { SIGNUP: 'closed' } })
    const text = await closed.text()
    expect(text).toContain('Signup is closed')
    expect(text).not.toContain('<form method="post" action="/signup"')
    const open = await (await call('/signup', { env: { SIGNUP: 'open' } })).text()
    expect(open).toContain('At least 8 characters.')
    const login = await (await call('/login', { env: { SIGNUP: 'closed' } })).text()
    expect(login).not.toContain('Create an account')
    expect(env.DB).toBeDefined()
  })
})
