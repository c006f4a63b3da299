import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { frameUrls, LIMITED_FRAME_SECONDS } from '../../src/web/frames/links'
import {
  browse,
  bytesOf,
  call,
  formPost,
  json,
  newAccount,
  newCanvas,
  ORIGIN,
  upload,
  type Account,
} from '../support/api'
import { routeName, ROUTES, type Route } from '../support/routes'
import { sampled } from '../support/runs'
import { realServices } from '../support/state'

// Withdrawn means withdrawn: for every route that hands out content, reached every way it can be
// (an API key, a share link, the owner's session, a public canvas, a frame issued by a page), and
// every way that access can end, the next request after the end is refused (4xx, no content).
// Signed storage URLs are the one documented exception: their lifetime is checked apart, below.

const TEXT = 'the words that must stop being served'

type Fixture = {
  account: Account
  /** A key made for reading, so revoking it leaves the fixture's own key working. */
  reader: { key: string; keyId: string }
  canvasId: string
  token: string
}

async function fixture(options: {
  maxViews?: number
  public?: boolean
  ext?: string
}): Promise<Fixture> {
  const account = await newAccount()
  const created = await json(
    await call('/auth/keys', { method: 'POST', cookie: account.cookie, json: { name: 'reader' } }),
  )
  const canvas = await newCanvas(account.key, TEXT, {
    permanent: true,
    title: 'Withdrawn',
    ext: options.ext,
  })
  const id = canvas.canvas_id
  if (options.public) {
    const patch = await call(`/v1/canvases/${id}`, {
      method: 'PATCH',
      key: account.key,
      json: { visibility: 'public' },
    })
    expect(patch.status).toBe(200)
  }
  const share = await json(
    await call(`/v1/canvases/${id}/shares`, {
      method: 'POST',
      key: account.key,
      json: options.maxViews ? { max_views: options.maxViews } : {},
    }),
  )
  return {
    account,
    reader: { key: created.key, keyId: created.key_id },
    canvasId: id,
    token: share.token,
  }
}

type Withdrawal = {
  name: string
  /** The link needs a view limit for this way of ending (used up). */
  maxViews?: number
  end: (f: Fixture) => Promise<void>
}

const now = () => Date.now()
const sql = (query: string, ...params: unknown[]) =>
  env.DB.prepare(query)
    .bind(...params)
    .run()

/** The owner's request that ends the access; it must succeed. */
async function owner(path: string, init: Parameters<typeof call>[1]) {
  const res = await call(path, init)
  expect(res.status, `${init?.method} ${path}`).toBe(200)
  return res
}

const W: Record<string, Withdrawal> = {
  revokeOne: {
    name: 'link revoked',
    end: async (f) => {
      const path = `/v1/canvases/${f.canvasId}/shares/${f.token}`
      await owner(path, { method: 'DELETE', key: f.account.key })
    },
  },
  revokeAll: {
    name: 'all links revoked',
    end: async (f) => {
      const path = `/v1/canvases/${f.canvasId}/shares`
      const res = await owner(path, { method: 'DELETE', key: f.account.key })
      expect((await json(res)).revoked).toBe(1)
    },
  },
  linkExpired: {
    name: 'link expired',
    end: async (f) => {
      await sql('UPDATE share_links SET expires_at = ? WHERE token = ?', now() - 1, f.token)
    },
  },
  usedUp: {
    name: 'link used up',
    maxViews: 1,
    // Reaching the content took the only view; nothing more to do.
    end: async () => {},
  },
  private: {
    name: 'canvas made private',
    end: async (f) => {
      const init = { method: 'PATCH', key: f.account.key, json: { visibility: 'private' } }
      await owner(`/v1/canvases/${f.canvasId}`, init)
    },
  },
  deleted: {
    name: 'canvas deleted',
    end: async (f) => {
      await owner(`/v1/canvases/${f.canvasId}`, { method: 'DELETE', key: f.account.key })
    },
  },
  canvasExpired: {
    name: 'canvas expired',
    end: async (f) => {
      await sql('UPDATE canvases SET expires_at = ? WHERE canvas_id = ?', now() - 1, f.canvasId)
    },
  },
  keyRevoked: {
    name: 'key revoked',
    end: async (f) => {
      await owner(`/auth/keys/${f.reader.keyId}`, { method: 'DELETE', cookie: f.account.cookie })
    },
  },
  sessionEnded: {
    name: 'session ended',
    end: async (f) => {
      await owner('/auth/logout', { method: 'POST', cookie: f.account.cookie })
    },
  },
}

const SHARE_ENDS = [W.revokeOne, W.revokeAll, W.linkExpired, W.usedUp, W.deleted, W.canvasExpired]

/**
 * One way a route is reached: `open` prepares the request (getting a frame URL from the page
 * that embeds it, when the route is a frame), which is then sent before and after the end.
 */
type Sent = { url: string; init?: Parameters<typeof call>[1] }
type Reach = {
  name: string
  /** The canvas is public: the only way in that needs it. Others use a private one. */
  public?: boolean
  /** The canvas's type, when the way in needs one (a text file otherwise). */
  ext?: string
  ends: Withdrawal[]
  open: (f: Fixture, route: Route) => Promise<Sent>
}

// The fixture's canvas is one .txt file: the item `index.txt` of its version.
const pathOf = (route: Route, f: Fixture) =>
  route.path
    .replace(':id', f.canvasId)
    .replace(':version', '1')
    .replace(':token', f.token)
    .replace(':path{.+}', 'index.txt')

/** The frame URL the page at `page` embeds, turned into `route` (the frame or its raw bytes). */
async function frameFrom(route: Route, page: Response): Promise<Sent> {
  expect(page.status).toBe(200)
  const src = /<iframe src="([^"]+)"/.exec(await page.text())![1].replace(/&amp;/g, '&')
  const url = new URL(src)
  if (route.path.endsWith('/raw')) url.pathname += '/raw'
  if (route.path.includes('/site/')) {
    // The fixture is one file, `index.txt`: served by path like any file of a site.
    const token = btoa(url.search.slice(1)).replace(/\+/g, '-').replace(/\//g, '_')
    url.pathname += `/site/${token.replace(/=+$/, '')}/index.txt`
    url.search = ''
  }
  return { url: url.href }
}

const REACHES: Record<Route['auth'], Reach[]> = {
  key: [
    {
      name: 'API key',
      ends: [W.keyRevoked, W.deleted, W.canvasExpired],
      open: async (f, route) => ({ url: pathOf(route, f), init: { key: f.reader.key } }),
    },
  ],
  share: [
    {
      name: 'share link',
      ends: SHARE_ENDS,
      open: async (f, route) => ({
        url: pathOf(route, f),
        init: route.method === 'POST' ? formPost({ password: '' }) : {},
      }),
    },
  ],
  viewer: [
    {
      name: "owner's session",
      ends: [W.sessionEnded, W.deleted, W.canvasExpired],
      open: async (f, route) => ({ url: pathOf(route, f), init: { cookie: f.account.cookie } }),
    },
    {
      name: 'public canvas',
      public: true,
      ends: [W.private, W.deleted, W.canvasExpired],
      open: async (f, route) => ({ url: pathOf(route, f) }),
    },
  ],
  signed: [
    {
      name: "viewer frame (owner's session)",
      ends: [W.sessionEnded, W.deleted, W.canvasExpired],
      open: async (f, route) =>
        frameFrom(route, await call(`/c/${f.canvasId}`, { cookie: f.account.cookie })),
    },
    {
      name: 'viewer frame (public canvas)',
      public: true,
      ends: [W.private, W.deleted, W.canvasExpired],
      open: async (f, route) => frameFrom(route, await call(`/c/${f.canvasId}`)),
    },
    {
      name: 'share page frame',
      ends: SHARE_ENDS,
      open: async (f, route) => frameFrom(route, await browse(`/s/${f.token}`)),
    },
  ],
  none: [],
  session: [],
  page: [],
}

/**
 * The ways a route is reached: by its kind of access, but for the diff page's rendered view, a
 * frame that only the owner's diff page of a Markdown or HTML canvas embeds.
 */
function reachesOf(route: Route): Reach[] {
  if (!route.path.endsWith('/changes')) return REACHES[route.auth]
  return [
    {
      name: "diff page frame (owner's session)",
      ext: 'md',
      ends: [W.sessionEnded, W.deleted, W.canvasExpired],
      open: async (f, route) => {
        // A second version, so that there are changes to show.
        const fileId = await upload(f.account.key, bytesOf(`${TEXT}, and more`), 'md')
        const init = { method: 'PATCH', key: f.account.key, json: { file_id: fileId } }
        await owner(`/v1/canvases/${f.canvasId}`, init)
        const page = `/c/${f.canvasId}/diff?from=1&to=2&view=rendered`
        return frameFrom(route, await call(page, { cookie: f.account.cookie }))
      },
    },
  ]
}

// As a browser would: a share page's Open button pressed, its redirect followed.
const send = (sent: Sent) => browse(sent.url, sent.init)

/** The content, answered directly, as a redirect to storage, or in the frame a page embeds. */
async function expectContent(res: Response, where: string) {
  expect(res.status, where).toBeLessThan(400)
  if (res.status === 302) {
    expect(await (await call(res.headers.get('Location')!)).text(), where).toContain(TEXT)
    return
  }
  const body = await res.text()
  const frame = /<iframe src="([^"]+)"/.exec(body)
  const shown = frame ? await (await call(frame[1].replace(/&amp;/g, '&'))).text() : body
  expect(shown, where).toContain(TEXT)
}

const contentRoutes = ROUTES.filter((r) => r.content)

describe('withdrawn access', () => {
  it('covers every content route with at least one way access ends', () => {
    expect(contentRoutes.length).toBeGreaterThanOrEqual(8)
    for (const route of contentRoutes) {
      const ends = reachesOf(route).flatMap((r) => r.ends)
      expect(ends.length, routeName(route)).toBeGreaterThan(0)
    }
  })

  // Every route, by every way in, after every way access ends (a tenth of them, from a random one,
  // in `npm run test:fast`).
  const cases = contentRoutes.flatMap((route) =>
    reachesOf(route).flatMap((reach) =>
      reach.ends
        // A frame outlives its link's last view by a short window, by design: checked apart below.
        .filter((end) => !(end === W.usedUp && route.auth === 'signed'))
        .map((end) => ({ route, reach, end })),
    ),
  )
  for (const { route, reach, end } of sampled(cases)) {
    it(`${routeName(route)} via ${reach.name}: refused once ${end.name}`, async () => {
      const f = await fixture({ maxViews: end.maxViews, public: reach.public, ext: reach.ext })
      const request = await reach.open(f, route)
      await expectContent(await send(request), 'before')
      await end.end(f)
      const after = await send(request)
      const where = `${routeName(route)} via ${reach.name} after ${end.name}`
      expect(after.status, where).toBeGreaterThanOrEqual(400)
      expect(after.status, where).toBeLessThan(500)
      const text = await after.text()
      expect(text, where).not.toContain(TEXT)
      expect(text, where).not.toContain('<iframe')
    })
  }
})

describe('a link with a view limit', () => {
  it('renders the view that uses it up, then its frames end after a short window', async () => {
    const f = await fixture({ maxViews: 1 })
    const page = await browse(`/s/${f.token}`)
    const frame = await frameFrom(
      ROUTES.find((r) => r.path === '/_frame/:id/:version')!,
      page,
    )
    const issued = Number(new URL(frame.url).searchParams.get('exp')) * 1000
    expect(issued - Date.now()).toBeLessThanOrEqual(LIMITED_FRAME_SECONDS * 1000)
    // The last view renders completely, its bytes too...
    await expectContent(await send(frame), 'the last view')
    const raw = new URL(frame.url)
    raw.pathname += '/raw'
    await expectContent(await call(raw.href), 'the last view, raw')
    // ...and the link is used up for everyone else.
    expect((await call(`/s/${f.token}`)).status).toBe(410)
    // The same frame as it stands once the window has passed: refused.
    const svc = realServices()
    const late = await frameUrls(
      { ...svc, now: () => Date.now() - LIMITED_FRAME_SECONDS * 1000 - 1000 },
      ORIGIN,
      {
        canvasId: f.canvasId,
        version: 1,
        grant: { kind: 'share', token: f.token },
        limited: true,
      },
    )
    for (const url of [late!.src, late!.download]) {
      const res = await call(url)
      expect(res.status, url).toBe(403)
      expect(await res.text()).not.toContain(TEXT)
    }
  })

  it('links without a limit give frames the usual lifetime, checked on every request', async () => {
    const f = await fixture({})
    const frame = await frameFrom(
      ROUTES.find((r) => r.path === '/_frame/:id/:version')!,
      await browse(`/s/${f.token}`),
    )
    const exp = Number(new URL(frame.url).searchParams.get('exp')) * 1000
    expect(exp - Date.now()).toBeGreaterThan(30 * 60_000)
  })
})

describe('signed storage URLs', () => {
  const lifetime = (location: string) => Number(new URL(location).searchParams.get('X-Amz-Expires'))

  it('live at most 60 s when given out under a share link', async () => {
    const f = await fixture({})
    const share = await call(`/share/${f.token}/content`)
    expect(lifetime(share.headers.get('Location')!)).toBe(60)
    const frame = await frameFrom(
      ROUTES.find((r) => r.path === '/_frame/:id/:version/raw')!,
      await browse(`/s/${f.token}`),
    )
    const raw = await send(frame)
    expect(raw.status).toBe(302)
    expect(lifetime(raw.headers.get('Location')!)).toBe(60)
    // The owner's frames keep DOWNLOAD_URL_TTL: a video asks its redirected URL for ranges.
    const owned = await frameFrom(
      ROUTES.find((r) => r.path === '/_frame/:id/:version/raw')!,
      await call(`/c/${f.canvasId}`, { cookie: f.account.cookie }),
    )
    expect(lifetime((await send(owned)).headers.get('Location')!)).toBe(300)
    // API downloads keep DOWNLOAD_URL_TTL: the key holder may start a slow download.
    const api = await call(`/v1/canvases/${f.canvasId}/content`, { key: f.account.key })
    expect(lifetime(api.headers.get('Location')!)).toBe(300)
  })
})
