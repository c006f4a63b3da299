import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { browse, call, formPost, json, newAccount, newCanvas } from './support/api'

// A link with a view limit loses a view when a person opens the content, never when its page is
// fetched: link previews and mail scanners fetch pages and their Open Graph tags, and a reload of
// a page opened a moment ago must neither count again nor post the password form again.

async function linkTo(body: object, text = 'counted words') {
  const account = await newAccount()
  const canvas = await newCanvas(account.key, text, { title: 'Counted', permanent: true })
  const res = await call(`/v1/canvases/${canvas.canvas_id}/shares`, {
    method: 'POST',
    key: account.key,
    json: body,
  })
  return { ...(await json(res)), account }
}

async function viewCount(token: string): Promise<number> {
  const row = await env.DB.prepare('SELECT view_count FROM share_links WHERE token = ?')
    .bind(token)
    .first<{ view_count: number }>()
  return row!.view_count
}

const viewCookie = (res: Response) =>
  /canvas_view=[^;]*/.exec(res.headers.get('Set-Cookie') ?? '')?.[0] ?? ''

describe('the share page of a link with a view limit', () => {
  it('is a page with an Open button that uses no view, however often it is fetched', async () => {
    const link = await linkTo({ max_views: 3 })
    for (let i = 0; i < 5; i++) {
      const res = await call(`/s/${link.token}`, {
        headers: { 'User-Agent': 'Slackbot-LinkExpanding 1.0' },
      })
      expect(res.status).toBe(200)
      expect(res.headers.get('Cache-Control')).toBe('no-store')
      const page = await res.text()
      expect(page).toContain('<meta property="og:title" content="Counted"/>')
      expect(page).toContain('it has 3 views left, and opening it uses one')
      expect(page).toContain(`<form method="post" action="/s/${link.token}">`)
      expect(page).not.toContain('<iframe')
    }
    expect(await viewCount(link.token)).toBe(0)
  })

  it('counts the click once: the redirect lands on the content, and reloads count nothing', async () => {
    const link = await linkTo({ max_views: 2 })
    const opened = await call(`/s/${link.token}`, formPost({ open: '1' }))
    expect(opened.status).toBe(303)
    expect(opened.headers.get('Location')).toBe(`/s/${link.token}`)
    const setCookie = opened.headers.get('Set-Cookie')!
    expect(setCookie).toMatch(/HttpOnly/)
    expect(setCookie).toMatch(/SameSite=Lax/)
    expect(setCookie).toContain(`Path=/s/${link.token}`)
    expect(setCookie).toMatch(/Max-Age=60\b/)
    expect(await viewCount(link.token)).toBe(1)
    for (let i = 0; i < 3; i++) {
      const page = await call(`/s/${link.token}`, { cookie: viewCookie(opened) })
      expect(page.status).toBe(200)
      const html = await page.text()
      expect(html).toContain('<iframe')
      expect(html).toContain('1 view left')
    }
    expect(await viewCount(link.token)).toBe(1)
  })

  it('shows the view that used the link up on reload; anyone else meets the used-up link', async () => {
    const link = await linkTo({ max_views: 1 })
    const opened = await call(`/s/${link.token}`, formPost({ open: '1' }))
    expect(await viewCount(link.token)).toBe(1)
    const again = await call(`/s/${link.token}`, { cookie: viewCookie(opened) })
    expect(again.status).toBe(200)
    expect(await again.text()).toContain('<iframe')
    expect((await call(`/s/${link.token}`)).status).toBe(410)
    const late = await call(`/s/${link.token}`, formPost({ open: '1' }))
    expect(late.status).toBe(410)
    expect(await viewCount(link.token)).toBe(1)
  })

  it('a view cookie opens only its own link, unaltered, and not once the link is revoked', async () => {
    const link = await linkTo({ max_views: 5 })
    const other = await linkTo({ max_views: 5 })
    const cookie = viewCookie(await call(`/s/${link.token}`, formPost({ open: '1' })))
    // Sent to another link's page (as a hand-made request would), it opens nothing there.
    const elsewhere = await call(`/s/${other.token}`, { cookie })
    expect(await elsewhere.text()).not.toContain('<iframe')
    const [exp, sig] = cookie.slice('canvas_view='.length).split('.')
    for (const forged of [
      `canvas_view=${Number(exp) + 3600}.${sig}`,
      `canvas_view=${exp}.${'0'.repeat(64)}`,
      'canvas_view=garbage',
    ]) {
      const res = await call(`/s/${link.token}`, { cookie: forged })
      expect(await res.text(), forged).not.toContain('<iframe')
    }
    expect(await viewCount(other.token)).toBe(0)
    await call(`/v1/canvases/${link.canvas_id}/shares/${link.token}`, {
      method: 'DELETE',
      key: link.account.key,
    })
    const revoked = await call(`/s/${link.token}`, { cookie })
    expect(revoked.status).toBe(404)
    expect(await revoked.text()).not.toContain('<iframe')
  })
})

describe('the share page of a password link', () => {
  it('counts the unlocking post once; the page it lands on reloads without the password', async () => {
    const link = await linkTo({ password: 'open sesame', max_views: 4 })
    const form = await call(`/s/${link.token}`)
    expect(form.status).toBe(401)
    expect(await form.text()).toContain('name="password"')
    expect(await viewCount(link.token)).toBe(0)
    const wrong = await call(`/s/${link.token}`, formPost({ password: 'nope' }))
    expect(wrong.status).toBe(403)
    expect(await viewCount(link.token)).toBe(0)
    const unlocked = await call(`/s/${link.token}`, formPost({ password: 'open sesame' }))
    expect(unlocked.status).toBe(303)
    for (let i = 0; i < 3; i++) {
      const page = await call(`/s/${link.token}`, { cookie: viewCookie(unlocked) })
      expect(page.status).toBe(200)
      expect(await page.text()).toContain('<iframe')
    }
    expect(await viewCount(link.token)).toBe(1)
  })

  it('an open link without a limit or password counts each page as before', async () => {
    const link = await linkTo({})
    const page = await browse(`/s/${link.token}`)
    expect(await page.text()).toContain('<iframe')
    await call(`/s/${link.token}`)
    expect(await viewCount(link.token)).toBe(2)
  })
})
