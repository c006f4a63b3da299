import { describe, expect, it } from 'vitest'
import {
  call,
  csrfOf,
  errorOf,
  formPost,
  json,
  newAccount,
  newCanvas,
  type Account,
} from './support/api'

// The comments of the owner's page and of a share page (docs/web.md): JSON
// routes for the pages' script. The owner's need the session, its CSRF token in a header and the
// page's own origin, and write as the account's email; a share page's take its view cookie in
// place of the link's password, and nothing else it would not take from the public routes.

async function owner() {
  const account = await newAccount()
  const canvas = await newCanvas(account.key, '# Plan\n\nShip it on Friday.', {
    title: 'Plan',
    ext: 'md',
  })
  return {
    account,
    canvas,
    csrf: await csrfOf(account.cookie),
    base: `/c/${canvas.canvas_id}/comments`,
  }
}

function send(
  path: string,
  account: Account,
  csrf: string | null,
  init: RequestInit & { json?: unknown } = {},
) {
  const headers: Record<string, string> = { Accept: 'application/json' }
  if (csrf !== null) headers['X-CSRF-Token'] = csrf
  return call(path, { method: 'POST', cookie: account.cookie, headers, ...init })
}

async function apiComments(account: Account, canvasId: string) {
  const res = await call(`/v1/canvases/${canvasId}/comments?status=all`, { key: account.key })
  return (await json(res)).comments as any[]
}

describe("the owner's page's comments", () => {
  it('comments, replies, resolves, reopens and deletes as the account, under its CSRF token', async () => {
    const { account, canvas, csrf, base } = await owner()
    const anchor = { quote: { exact: 'on Friday', prefix: 'Ship it ', suffix: '.' } }
    const made = await send(base, account, csrf, { json: { body: 'Why *Friday*?', anchor } })
    expect(made.status).toBe(201)
    const comment = await json(made)
    expect(comment).toMatchObject({
      canvas_id: canvas.canvas_id,
      version: 1,
      anchor,
      body: 'Why *Friday*?',
      author: { name: account.email, kind: 'member' },
      status: 'open',
    })
    const replied = await send(`${base}/${comment.comment_id}/replies`, account, csrf, {
      json: { body: 'Because.' },
    })
    expect(replied.status).toBe(201)
    const reply = await json(replied)
    expect(reply.author).toEqual({ name: account.email, kind: 'member' })
    const resolved = await send(`${base}/${comment.comment_id}/resolve`, account, csrf)
    expect(resolved.status).toBe(200)
    expect(await json(resolved)).toMatchObject({ status: 'resolved', replies: [reply] })
    const listed = await call(`${base}?status=resolved`, { cookie: account.cookie })
    expect(listed.status).toBe(200)
    expect((await json(listed)).comments.map((c: any) => c.comment_id)).toEqual([
      comment.comment_id,
    ])
    const reopened = await send(`${base}/${comment.comment_id}/reopen`, account, csrf)
    expect(await json(reopened)).toMatchObject({ status: 'open', resolved_at: null })
    const noReply = await send(
      `${base}/${comment.comment_id}/replies/${reply.reply_id}`,
      account,
      csrf,
      {
        method: 'DELETE',
      },
    )
    expect(await json(noReply)).toEqual({ success: true })
    const gone = await send(`${base}/${comment.comment_id}`, account, csrf, { method: 'DELETE' })
    expect(await json(gone)).toEqual({ success: true })
    expect(await apiComments(account, canvas.canvas_id)).toEqual([])
  })

  it('refuses a write without the CSRF token, or from another origin, changing nothing', async () => {
    const { account, canvas, csrf, base } = await owner()
    const body = { json: { body: 'Sneaky' } }
    for (const token of [null, '0'.repeat(32)]) {
      const res = await send(base, account, token, body)
      expect(res.status).toBe(403)
      expect(await json(res)).toEqual(
        errorOf('forbidden', 'The form has expired; reload the page and try again.'),
      )
    }
    const cross = await send(base, account, csrf, {
      ...body,
      headers: { 'X-CSRF-Token': csrf, Origin: 'https://evil.example' },
    })
    expect(cross.status).toBe(403)
    expect(await json(cross)).toEqual(errorOf('forbidden', 'Cross-origin request refused.'))
    expect(await apiComments(account, canvas.canvas_id)).toEqual([])
  })

  it("answers another account's session as if the canvas did not exist", async () => {
    const { account, canvas, base } = await owner()
    const other = await newAccount()
    const otherCsrf = await csrfOf(other.cookie)
    const list = await call(base, { cookie: other.cookie })
    expect(list.status).toBe(404)
    expect(await json(list)).toEqual(errorOf('canvas_not_found', 'Canvas not found.'))
    const post = await send(base, other, otherCsrf, { json: { body: 'Mine now' } })
    expect(post.status).toBe(404)
    expect(await json(post)).toEqual(errorOf('canvas_not_found', 'Canvas not found.'))
    expect(await apiComments(account, canvas.canvas_id)).toEqual([])
  })

  it('stores hostile text as text, and says what is wrong with bad input in words', async () => {
    const { account, canvas, csrf, base } = await owner()
    const hostile = '<script>alert(1)</script><img src=x onerror=alert(2)> [x](javascript:alert(3))'
    const made = await send(base, account, csrf, { json: { body: hostile } })
    expect(made.status).toBe(201)
    expect(made.headers.get('Content-Type')).toMatch(/^application\/json/)
    expect((await json(made)).body).toBe(hostile)
    const long = await send(base, account, csrf, { json: { body: 'x'.repeat(10_001) } })
    expect(long.status).toBe(400)
    expect(await json(long)).toEqual(
      errorOf('invalid_request', 'The comment must be at most 10000 characters.'),
    )
    const point = await send(base, account, csrf, {
      json: { body: 'Off the page', anchor: { point: { x: 2, y: 0 } } },
    })
    expect(point.status).toBe(400)
    expect((await json(point)).error.message).toMatch(/^The text or point commented on /)
    expect((await apiComments(account, canvas.canvas_id)).map((c) => c.body)).toEqual([hostile])
  })
})

describe("a share page's comments", () => {
  async function sharedWithPassword(allow = true) {
    const { account, canvas } = await owner()
    const password = 'open sesame'
    const share = await json(
      await call(`/v1/canvases/${canvas.canvas_id}/shares`, {
        method: 'POST',
        key: account.key,
        json: { password, allow_comments: allow },
      }),
    )
    return { account, canvas, token: share.token as string, password }
  }

  /** The view cookie the share page's password form sets. */
  async function opened(token: string, password: string) {
    const res = await call(`/s/${token}`, formPost({ password }))
    expect(res.status).toBe(303)
    return /canvas_view=[^;]*/.exec(res.headers.get('Set-Cookie')!)![0]
  }

  it('takes the page’s view cookie for the password, and only for its own link', async () => {
    const { account, canvas, token, password } = await sharedWithPassword()
    const base = `/s/${token}/comments`
    const without = await call(base)
    expect(without.status).toBe(401)
    expect(await json(without)).toEqual(
      errorOf('share_password_required', 'This share link needs a password: X-Share-Password.'),
    )
    const cookie = await opened(token, password)
    const made = await call(base, {
      method: 'POST',
      cookie,
      json: { body: 'A reader’s note', name: '  Grace  ' },
    })
    expect(made.status).toBe(201)
    expect(await json(made)).toMatchObject({
      body: 'A reader’s note',
      author: { name: 'Grace', kind: 'visitor' },
      version: 1,
    })
    const listed = await json(await call(base, { cookie }))
    expect(listed.comments.map((c: any) => c.body)).toEqual(['A reader’s note'])

    // Another link's cookie, or one altered, stands for nothing.
    const second = await sharedWithPassword()
    const borrowed = await call(`/s/${second.token}/comments`, { cookie })
    expect(borrowed.status).toBe(401)
    const altered = cookie.replace(/.$/, (ch) => (ch === 'a' ? 'b' : 'a'))
    expect((await call(base, { cookie: altered })).status).toBe(401)
    expect((await apiComments(account, canvas.canvas_id)).length).toBe(1)
  })

  it('refuses a link without comments, a cross-origin post and a bad name', async () => {
    const { account, canvas, token, password } = await sharedWithPassword(false)
    const cookie = await opened(token, password)
    const refused = await call(`/s/${token}/comments`, {
      method: 'POST',
      cookie,
      json: { body: 'Hello', name: 'Ada' },
    })
    expect(refused.status).toBe(403)
    expect(await json(refused)).toEqual(
      errorOf('comments_disabled', 'This share link does not allow comments.'),
    )
    const open = await sharedWithPassword()
    const openCookie = await opened(open.token, open.password)
    const cross = await call(`/s/${open.token}/comments`, {
      method: 'POST',
      cookie: openCookie,
      headers: { Origin: 'https://evil.example' },
      json: { body: 'Hello', name: 'Ada' },
    })
    expect(cross.status).toBe(403)
    const badName = await call(`/s/${open.token}/comments`, {
      method: 'POST',
      cookie: openCookie,
      json: { body: 'Hello', name: 'x'.repeat(61) },
    })
    expect(badName.status).toBe(400)
    expect(await json(badName)).toEqual(
      errorOf('invalid_request', 'The name must be at most 60 characters.'),
    )
    expect(await apiComments(account, canvas.canvas_id)).toEqual([])
    expect(await apiComments(open.account, open.canvas.canvas_id)).toEqual([])
  })
})

describe('the pages around the comments', () => {
  it('the share form allows comments when its box is ticked, and the list says so', async () => {
    const { account, canvas, csrf } = await owner()
    for (const ticked of [true, false]) {
      const fields: Record<string, string> = { _csrf: csrf }
      if (ticked) fields.allow_comments = 'true'
      const res = await call(`/c/${canvas.canvas_id}/share`, {
        ...formPost(fields),
        cookie: account.cookie,
      })
      expect(res.status).toBe(302)
    }
    const { shares } = await json(
      await call(`/v1/canvases/${canvas.canvas_id}/shares`, { key: account.key }),
    )
    expect(shares.map((s: any) => s.allow_comments).sort()).toEqual([false, true])
    const page = await (await call(`/c/${canvas.canvas_id}`, { cookie: account.cookie })).text()
    expect(page).toContain('name="allow_comments"')
    expect(page).toContain('<td data-label="Comments">allowed</td>')
    expect(page).toContain('<td data-label="Comments">no</td>')
  })

  it("a share page lists the link's comments without a script, as text", async () => {
    const { account, canvas } = await owner()
    const hostile = '<img src=x onerror=alert(1)> and <script>alert(2)</script>'
    await call(`/v1/canvases/${canvas.canvas_id}/comments`, {
      method: 'POST',
      key: account.key,
      json: { body: hostile },
    })
    const shareOf = async (allow: boolean) =>
      (
        await json(
          await call(`/v1/canvases/${canvas.canvas_id}/shares`, {
            method: 'POST',
            key: account.key,
            json: { allow_comments: allow },
          }),
        )
      ).token as string
    const page = await (await call(`/s/${await shareOf(true)}`)).text()
    expect(page).toContain(`data-comments="/s/`)
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt; and &lt;script&gt;alert(2)')
    expect(page).not.toContain('<img src=x')
    // Beside comments, the frame may run the bridge (and only the bridge: its policy says so).
    expect(page).toMatch(/sandbox="allow-scripts allow-popups /)
    const closed = await (await call(`/s/${await shareOf(false)}`)).text()
    expect(closed).not.toContain('data-comments=')
    expect(closed).not.toContain(hostile.slice(0, 8))
    // Without comments a Markdown frame still may draw (math, diagrams: test/drawings.test.ts),
    // so its sandbox allows scripts, and its policy names each one it runs.
    expect(closed).toMatch(/sandbox="allow-scripts allow-popups /)
  })

  it('rendered frames carry the bridge, allowed by its hash alone; HTML canvases get it last', async () => {
    const { account, canvas } = await owner()
    const page = await (await call(`/c/${canvas.canvas_id}`, { cookie: account.cookie })).text()
    const src = /<iframe src="([^"]+)"/.exec(page)![1].replace(/&amp;/g, '&')
    const frame = await call(src)
    const csp = frame.headers.get('Content-Security-Policy')!
    const hash = /script-src '(sha256-[^']+)'/.exec(csp)![1]
    const html = await frame.text()
    const script = /<script data-app="http:\/\/canvas\.test">([\s\S]*?)<\/script>/.exec(html)![1]
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(script))
    expect(hash).toBe(`sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}`)
    expect(csp).not.toContain('unsafe-inline;')
    expect(csp).not.toMatch(/script-src[^;]*unsafe/)

    const doc =
      '<!doctype html><html><body><p id="own">Own page</p><script>1</script></body></html>'
    const htmlCanvas = await newCanvas(account.key, doc, { title: 'Page', ext: 'html' })
    const owned = await (
      await call(`/c/${htmlCanvas.canvas_id}`, { cookie: account.cookie })
    ).text()
    const htmlSrc = /<iframe src="([^"]+)"/.exec(owned)![1].replace(/&amp;/g, '&')
    const body = await (await call(htmlSrc)).text()
    expect(body.startsWith(doc)).toBe(true)
    expect(body.slice(doc.length)).toMatch(
      /^<script data-app="http:\/\/canvas\.test">.+<\/script>$/s,
    )
  })
})
