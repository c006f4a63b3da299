import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Frame, Page } from 'playwright-core'
import { schemeViolations, seriousViolations } from './support/axe'
import { launchBrowser, type Person } from './support/browser'
import { newDevAccount, sharedDevServer, SETUP_MS } from './support/dev-server'
import { callApi, type ApiInit } from './support/api.ts'

// Comments in the viewer (docs/web.md), in real Chromium against a real
// `wrangler dev`: text selected in the content becomes a comment highlighted in place, a visitor's
// comment through a share link reaches the owner's open page live and the owner's resolve reaches
// the visitor's, the panel is a drawer on a phone, and what a comment says is shown, never run.

const PHONE = { width: 390, height: 844 }
const LAPTOP = { width: 1280, height: 800 }
/** The contract's bound for news reaching an open page, as a wait's timeout. */
const LIVE_MS = 2000

let url: string
let key: string
let cookie: string
let browser: Awaited<ReturnType<typeof launchBrowser>>
let owner: Person

beforeAll(async () => {
  url = (await sharedDevServer()).url
  const account = await newDevAccount(url, `comments-${Date.now()}@example.com`)
  key = account.key
  cookie = account.cookie
  browser = await launchBrowser()
  owner = await signedIn()
}, SETUP_MS)

afterAll(async () => {
  await browser?.close()
})

/** A person holding the owner's session. */
async function signedIn() {
  const person = await browser.newPerson()
  const [name, value] = cookie.split('=')
  await person.context.addCookies([{ name, value, url }])
  return person
}

const api = (path: string, init?: ApiInit) => callApi(url, key, path, init)

async function canvas(name: string, content: string) {
  const form = new FormData()
  form.append('file', new Blob([content]), name)
  const res = await api('/v1/canvases', { method: 'POST', body: form })
  expect(res.status).toBe(201)
  return ((await res.json()) as { canvas_id: string }).canvas_id
}

/** The content frame, once its bridge has told the page it is there. */
async function contentFrame(page: Page): Promise<Frame> {
  await page.waitForSelector('.stage iframe')
  const frame = page.frames().find((f) => f !== page.mainFrame())!
  await frame.waitForLoadState()
  return frame
}

/** The text of the comments highlighted in the frame. */
const highlighted = (frame: Frame) =>
  frame.evaluate(() => {
    const set = (CSS as unknown as { highlights: Map<string, Set<Range>> }).highlights.get(
      'canvas-comments',
    )
    return set ? [...set].map((range) => range.toString()) : []
  })

describe('commenting on what is selected', () => {
  for (const [name, content, word] of [
    ['notes.md', '# Plan\n\nWe ship on **Friday**, after the review.\n', 'Friday'],
    [
      'page.html',
      '<!doctype html><html><body><h1>Plan</h1><p>We ship on <b id="day">Monday</b>.</p>' +
        '<script>document.body.dataset.ran = "yes"</script></body></html>',
      'Monday',
    ],
  ] as const) {
    it(`${name}: a word selected, commented on, highlighted in the frame`, async () => {
      const id = await canvas(name, content)
      const page = await owner.context.newPage()
      await page.goto(`${url}/c/${id}`)
      const frame = await contentFrame(page)
      await frame.locator(name.endsWith('md') ? 'strong' : '#day').dblclick()
      await expect.poll(() => page.textContent('.anchor-note .hint')).toBe(`On “${word}”`)
      await page.fill('#comment-body', `Why *${word}*?`)
      await page.click('.comment-form button[type=submit]')
      const item = page.locator('.comment-list .comment', { hasText: `Why ${word}?` })
      await item.waitFor()
      expect(await item.locator('.body em').textContent()).toBe(word)
      expect(await item.locator('.quote').textContent()).toBe(word)
      await expect.poll(() => highlighted(frame)).toEqual([word])
      // Stored as the API shows it: the quote, with its context.
      const comments = (await (await api(`/v1/canvases/${id}/comments`)).json()) as any
      expect(comments.comments[0].anchor.quote).toMatchObject({ exact: word })
      expect(comments.comments[0].anchor.quote.prefix).toMatch(/We ship on $/)
      await page.close()
    })
  }
})

describe('live between the owner and a visitor', () => {
  it('a visitor’s comment reaches the owner’s page, the owner’s answer and resolve the visitor’s, who keeps the thread folded', async () => {
    const id = await canvas('live.md', '# Live\n\nA canvas to discuss.\n')
    const res = await api(`/v1/canvases/${id}/shares`, {
      method: 'POST',
      json: { allow_comments: true },
    })
    const { token } = (await res.json()) as { token: string }
    const ownerPage = await owner.context.newPage()
    await ownerPage.goto(`${url}/c/${id}`)
    await ownerPage.waitForSelector('[data-live-state=open]')

    const visitor = await browser.newPerson()
    const page = await visitor.context.newPage()
    await page.goto(`${url}/s/${token}`)
    await page.waitForSelector('[data-live-state=open]')
    // The name is required: the browser says so before anything is sent.
    const missing = () =>
      page.$eval('#comment-name', (el) => (el as HTMLInputElement).validity.valueMissing)
    expect(await missing()).toBe(true)
    await page.fill('#comment-name', 'Grace')
    expect(await missing()).toBe(false)
    await page.fill('#comment-body', 'Looks good to me.')
    await page.click('.comment-form button[type=submit]')
    await page.locator('.comment', { hasText: 'Looks good to me.' }).waitFor()

    const seen = ownerPage.locator('.comment', { hasText: 'Looks good to me.' })
    await seen.waitFor({ timeout: LIVE_MS })
    expect(await seen.locator('.who').textContent()).toBe('Grace')
    expect(await ownerPage.textContent('[data-comments-count]')).toBe('1')

    // The owner answers and resolves: the visitor keeps the question, folded, with its answer.
    await seen.getByRole('button', { name: 'Reply' }).click()
    await seen.locator('textarea').fill('Thanks, merged.')
    await seen.locator('.reply-form button[type=submit]').click()
    await seen.locator('.reply', { hasText: 'Thanks, merged.' }).waitFor()
    await seen.getByRole('button', { name: 'Resolve' }).click()
    const asked = page.locator('.comment', { hasText: 'Looks good to me.' })
    await asked.locator('.body.clamped').waitFor({ timeout: LIVE_MS })
    expect(await page.textContent('[data-comments-count]')).toBe('0')
    expect(await asked.locator('.chip', { hasText: 'resolved' }).count()).toBe(1)
    expect(await asked.locator('.reply').count()).toBe(0)
    await asked.getByRole('button', { name: 'Show the answer' }).click()
    expect(await asked.locator('.reply').innerText()).toContain('Thanks, merged.')
    await asked.getByRole('button', { name: 'Fold' }).click()
    expect(await asked.locator('.reply').count()).toBe(0)

    // The name is asked once: the next visit has it; the answered question is still there.
    await page.reload()
    expect(await page.inputValue('#comment-name')).toBe('Grace')
    expect(await page.locator('[data-comments-resolved]').isVisible()).toBe(false)
    await page.locator('.comment.resolved', { hasText: 'Looks good to me.' }).waitFor()
    // The visitor's page, with its form and a resolved thread unfolded, is as accessible as the rest.
    await page.getByRole('button', { name: 'Show the answer' }).click()
    const serious = await seriousViolations(page)
    expect(serious.map((v) => `${v.id} ${v.nodes[0]?.target}`)).toEqual([])
    await ownerPage.close()
    await visitor.close()
  })
})

// The review's seventh finding: after a reply was posted, its box kept the text and stayed open
// (the live event of the reply redrew the list meanwhile), and Reply clicked again posted it twice.
describe('a reply', () => {
  it('is posted once however it is clicked; its box clears and closes', async () => {
    const id = await canvas('reply.md', '# Reply\n\nSomething to answer.\n')
    const made = await api(`/v1/canvases/${id}/comments`, {
      method: 'POST',
      json: { body: 'Is this right?' },
    })
    const { comment_id: commentId } = (await made.json()) as { comment_id: string }
    const page = await owner.context.newPage()
    await page.goto(`${url}/c/${id}`)
    await page.waitForSelector('[data-live-state=open]')
    const thread = page.locator('.comment', { hasText: 'Is this right?' })
    await thread.getByRole('button', { name: 'Reply', exact: true }).click()
    await thread.locator('textarea[data-reply-to]').fill('Yes, it is.')
    const send = thread.locator('.reply-form button[type=submit]')
    // Three clicks as fast as a hand can make them: the first sends, the rest find it on its way.
    await send.click({ clickCount: 3, delay: 0 })
    await thread.locator('.reply', { hasText: 'Yes, it is.' }).waitFor()
    await expect.poll(() => thread.locator('.reply-form').isHidden()).toBe(true)
    // Opened again, the box is empty.
    await thread.getByRole('button', { name: 'Reply', exact: true }).click()
    expect(await thread.locator('textarea[data-reply-to]').inputValue()).toBe('')
    const listed = (await (await api(`/v1/canvases/${id}/comments`)).json()) as any
    const replies = listed.comments.find((c: any) => c.comment_id === commentId).replies
    expect(replies.map((r: any) => r.body)).toEqual(['Yes, it is.'])
    await page.close()
  })
})

describe('what a comment says', () => {
  it('is shown as text: no script, no image, no javascript: link runs', async () => {
    const id = await canvas('safe.md', '# Safe\n\nText.\n')
    const hostile =
      '<script>window.ran = 1</script> <img src=x onerror="window.ran = 2"> ' +
      '[click](javascript:window.ran=3) and [fine](https://example.com/ok)'
    expect(
      (await api(`/v1/canvases/${id}/comments`, { method: 'POST', json: { body: hostile } }))
        .status,
    ).toBe(201)
    const page = await owner.context.newPage()
    let dialogs = 0
    page.on('dialog', (dialog) => {
      dialogs++
      void dialog.dismiss()
    })
    await page.goto(`${url}/c/${id}`)
    const body = page.locator('.comment .body')
    await body.locator('a').waitFor()
    expect(await body.textContent()).toContain('<script>window.ran = 1</script>')
    expect(await body.textContent()).toContain('[click](javascript:window.ran=3)')
    expect(await body.locator('img, script').count()).toBe(0)
    const links = await body
      .locator('a')
      .evaluateAll((as) => as.map((a) => [a.getAttribute('href'), a.getAttribute('rel')]))
    expect(links).toEqual([['https://example.com/ok', 'noopener noreferrer nofollow ugc']])
    expect(await page.evaluate(() => (window as { ran?: number }).ran)).toBeUndefined()
    expect(dialogs).toBe(0)
    await page.close()
  })
})

describe('on a phone and a laptop', () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    it(`${colorScheme}: a drawer on a phone with 44 px targets, a column on a laptop; axe finds nothing serious`, async () => {
      const id = await canvas('layout.md', '# Layout\n\nSome text to comment on.\n')
      await api(`/v1/canvases/${id}/comments`, {
        method: 'POST',
        json: { body: 'A first thought.' },
      })
      const person = await signedIn()
      const page = await person.context.newPage()
      await page.emulateMedia({ colorScheme })
      for (const size of [PHONE, LAPTOP]) {
        await page.setViewportSize(size)
        await page.goto(`${url}/c/${id}`)
        await page.locator('.comment-form').waitFor({ state: 'attached' })
        const panel = page.locator('#comments')
        if (size === PHONE) {
          expect(await panel.isVisible()).toBe(false)
          await page.click('[data-comments-toggle]')
          await expect
            .poll(() => panel.boundingBox().then((b) => b && b.y + b.height))
            .toBe(size.height)
          // A checkbox is hit through its label, which is measured instead.
          const small = await panel.evaluate((root) =>
            Array.from(
              root.querySelectorAll<HTMLElement>(
                'button, a, input:not([type=checkbox]), textarea, label.check',
              ),
            )
              .filter((el) => el.offsetParent !== null)
              .map((el) => [el.textContent?.trim() || el.tagName, el.getBoundingClientRect()])
              .filter(([, r]) => (r as DOMRect).height < 44 || (r as DOMRect).width < 44)
              .map(([name]) => name),
          )
          expect(small).toEqual([])
        } else {
          const box = (await panel.boundingBox())!
          expect(box.x + box.width).toBeLessThanOrEqual(size.width)
          expect(box.width).toBeGreaterThan(300)
        }
        const wide = await page.evaluate(() => document.documentElement.scrollWidth)
        expect(wide).toBeLessThanOrEqual(size.width)
        const serious = await schemeViolations(page, colorScheme)
        expect(serious.map((v) => `${size.width}: ${v.id} ${v.nodes[0]?.target}`)).toEqual([])
      }
      await person.close()
    })
  }
})
