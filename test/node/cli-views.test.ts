import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readershipLines, sparkline } from '../../cli/views'
import type { Readership } from '../../cli/types'
import { svc } from './support/cli'
import { newDevAccount, sharedDevServer, SETUP_MS } from './support/dev-server'

// `svc views`: who read a canvas, in a terminal and as JSON (docs/readership.md), against a real
// `wrangler dev`; its lines and its bar a day, from the answers the route gives.

const DAY = 86_400_000
const NOW = Date.parse('2026-12-06T12:00:00Z')

const none: Readership = {
  canvas_id: 'c1',
  enabled: true,
  days: 7,
  total: 0,
  unique: 0,
  by_day: [],
  by_version: [],
  by_link: [],
  members: [],
  denied: { expired: 0, revoked: 0, wrong_password: 0, max_views: 0 },
  denied_unique: { expired: 0, revoked: 0, wrong_password: 0, max_views: 0 },
}

describe('its lines', () => {
  it('draws a bar a day of the period, today last, an empty day blank', () => {
    const byDay = [
      { date: '2026-12-06', views: 8, unique: 2 },
      { date: '2026-12-04', views: 1, unique: 1 },
      { date: '2026-11-29', views: 4, unique: 1 },
    ]
    expect(sparkline(byDay, 7, NOW)).toBe('    ▁ █')
    expect(sparkline(byDay, 9, NOW)).toBe(' ▄    ▁ █')
    // A period without a read: a flat line.
    expect(sparkline([], 3, NOW)).toBe('▁▁▁')
    expect(sparkline(byDay, 1, NOW + DAY)).toBe('▁')
  })

  it('says what was read, by version, link and member, with a server’s strings made visible', () => {
    const views: Readership = {
      ...none,
      total: 5,
      unique: 3,
      by_day: [{ date: '2026-12-06', views: 5, unique: 3 }],
      by_version: [
        { version: 2, views: 4 },
        { version: 1, views: 1 },
      ],
      by_link: [
        {
          token_prefix: 'aB3dE9',
          views: 3,
          unique: 2,
          last_viewed_at: new Date(NOW).toISOString(),
        },
      ],
      members: [
        {
          user_id: 'u1',
          name: 'ada\u001b]0;owned\u0007',
          last_viewed_at: new Date(NOW).toISOString(),
          last_version: 2,
        },
      ],
    }
    const text = readershipLines(views, NOW).text
    expect(text).toContain('c1: 5 views by 3 readers in the last 7 days')
    expect(text).toContain('by version: v2 4 · v1 1')
    expect(text).toContain('link aB3dE9…: 3 views by 2 readers, last')
    expect(text).toContain('ada\\u001b]0;owned\\u0007 read v2')
    expect(text).not.toMatch(/\u001b/)
    expect(readershipLines(none, NOW).text).toBe('c1: 0 views by 0 readers in the last 7 days')
    // Refused opens are said even of a period nobody read in.
    const refused = readershipLines(
      {
        ...none,
        denied: { ...none.denied, expired: 3, wrong_password: 1 },
        denied_unique: { ...none.denied_unique, expired: 2, wrong_password: 1 },
      },
      NOW,
    ).text
    expect(refused).toBe(
      'c1: 0 views by 0 readers in the last 7 days\n' +
        '  refused opens: 3 on an expired link (2 readers) · 1 with a wrong password (1 reader)',
    )
    // A server from before refused opens were counted.
    const { denied: _d, denied_unique: _u, ...older } = none
    expect(readershipLines(older as Readership, NOW).text).toBe(
      'c1: 0 views by 0 readers in the last 7 days',
    )
    expect(readershipLines({ ...none, enabled: false }, NOW).text).toBe(
      'c1: this service counts no reads (VIEW_ANALYTICS is off)',
    )
  })
})

describe('svc views against the service', () => {
  let server: { url: string }
  let key: string
  let work: string

  beforeAll(async () => {
    server = await sharedDevServer()
    key = (await newDevAccount(server.url, 'views@example.com')).key
    work = mkdtempSync(join(tmpdir(), 'canvas-views-'))
  }, SETUP_MS)

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true })
  })

  const run = (args: string[]) =>
    svc(mkdtempSync(join(work, 'home-')), args, {
      CANVAS_API_KEY: key,
      CANVAS_ENDPOINT: server.url,
    })

  it('shows a link’s reads within a minute, and refuses a period it cannot hold', async () => {
    const file = join(work, 'read.md')
    writeFileSync(file, '# Read me')
    const pushed = await run(['push', file, '--json'])
    expect(pushed.code, pushed.stderr).toBe(0)
    const id = JSON.parse(pushed.stdout).canvas_id as string
    const shared = await run(['share', id, '--json'])
    const { token } = JSON.parse(shared.stdout)
    const read = await fetch(`${server.url}/share/${token}/content`, { redirect: 'manual' })
    expect(read.status).toBe(302)
    // The first read of a quiet canvas is written at once; the isolate gathers it for a second.
    await expect
      .poll(
        async () => {
          const res = await run(['views', id, '--days', '7', '--json'])
          return res.code === 0 ? JSON.parse(res.stdout).total : `${res.code}: ${res.stderr}`
        },
        { timeout: 30_000, interval: 500 },
      )
      .toBe(1)
    const shown = await run(['views', id])
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stdout).toContain(`${id}: 1 view by 1 reader in the last 30 days`)
    expect(shown.stdout).toContain(`link ${token.slice(0, 6)}…: 1 view by 1 reader`)
    for (const days of ['0', '91', 'week']) {
      const refused = await run(['views', id, '--days', days])
      expect(refused.code, days).toBe(2)
      expect(refused.stderr).toMatch(/--days must be/)
    }
  })
})
