import { createServer, type Server } from 'node:http'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as flags from '../../cli/flags'
import {
  COMMENT_STATUSES,
  commentAnchor,
  createShareFields,
  cursorToken,
  duration,
  ext,
  id,
  listQuery,
  MAX_COMMENT_LENGTH,
  MAX_QUOTE_LENGTH,
  replyBody,
  title,
  versionParam,
  visibility,
} from '../../src/schema/requests'
import { wild } from '../support/hostile-values'
import { svc } from './support/cli'
import { freePort } from './support/dev-server'

// A bad flag value is a mistake in the command line: exit 2, said before any request is sent (a
// server that records every request it gets shows none), by the API's own rules.

let server: Server
let url: string
let requests: string[] = []
const work = mkdtempSync(join(tmpdir(), 'canvas-flags-'))
const KEY = 'svc_' + 'f'.repeat(40)

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`)
    if (req.url === '/v1/renderers') {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      return res.end(JSON.stringify({ renderers: [{ renderer_id: 'html', name: 'HTML' }] }))
    }
    res.writeHead(500).end()
  })
  const port = await freePort()
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${port}`
}, 60_000)

afterAll(() => {
  server.close()
  rmSync(work, { recursive: true, force: true })
})

describe('bad flag values', () => {
  const page = join(work, 'page.html')
  writeFileSync(page, '<p>')
  const positive = (flag: string) => `error: --${flag} must be a positive whole number (usage)\n`
  const at = (flag: string, max: number) => `error: --${flag} must be at most ${max} (usage)\n`
  const expires =
    'error: --expires must be a duration such as 30m, 24h or 7d (units s, m, h, d, w), at most 365d (usage)\n'
  const cases: [string[], string, string[]?][] = [
    [['share', 'c', '--expires', '2y'], expires],
    [['share', 'c', '--expires', '0d'], expires],
    [['share', 'c', '--expires', '366d'], expires],
    [['share', 'c', '--expires', '1.5h'], expires],
    [['share', 'c', '--expires'], expires],
    [['share', 'c', '--max-views', '0'], positive('max-views')],
    [['share', 'c', '--max-views', 'lots'], positive('max-views')],
    [['share', 'c', '--max-views', '1000001'], at('max-views', 1_000_000)],
    [['share', 'c', '--version', '0'], positive('version')],
    [['share', 'c', '--version', '1e3'], positive('version')],
    [
      ['share', 'c', '--password', 'abc'],
      'error: --password must be 4 to 256 characters (usage)\n',
    ],
    [['list', '--limit', '0'], positive('limit')],
    [['list', '--limit', '101'], at('limit', 100)],
    [['list', '--limit', 'x'], positive('limit')],
    [
      ['list', '--type', '../x'],
      "error: --type must be a file extension such as html, got '../x' (usage)\n",
    ],
    [
      ['list', '--cursor', 'a b'],
      "error: --cursor must be a cursor as svc list printed it, got 'a b' (usage)\n",
    ],
    [['pull', 'c', '--version', 'x'], positive('version')],
    [['pull', 'c', '--version', '1000000000'], at('version', 999_999_999)],
    [['rollback', 'c', '0'], positive('version')],
    [['push', page, '--title', ''], 'error: --title must be 1 to 200 characters (usage)\n'],
    [
      ['push', page, '--title', 'x'.repeat(201)],
      'error: --title must be 1 to 200 characters (usage)\n',
    ],
    [
      ['push', page, '--title', 'a\u0007b'],
      'error: --title must not contain control characters (usage)\n',
    ],
    [
      ['push', page, '--id', 'a/b'],
      "error: --id must be a canvas id (letters and digits), got 'a/b' (usage)\n",
    ],
    [
      ['push', page, '--renderer', 'Bad!'],
      "error: --renderer: unknown renderer 'Bad!'; see svc renderers (usage)\n",
    ],
    [
      ['push', page, '--renderer', 'nope'],
      "error: --renderer: unknown renderer 'nope'; see svc renderers (usage)\n",
      ['GET /v1/renderers'],
    ],
    [['push', page, '--main', 'a.html'], 'error: --main goes with a folder (usage)\n'],
    [['push', page, '--all'], 'error: --all goes with a folder (usage)\n'],
    [
      ['update', 'c', '--visibility', 'secret'],
      "error: --visibility must be private or public, got 'secret' (usage)\n",
    ],
    [['update', 'c', '--title', ''], 'error: --title must be 1 to 200 characters (usage)\n'],
    [
      ['update', 'c', '--renderer', 'nope'],
      "error: --renderer: unknown renderer 'nope'; see svc renderers (usage)\n",
      ['GET /v1/renderers'],
    ],
    [
      ['update', 'c'],
      'error: nothing to update: give --title, --visibility or --renderer (usage)\n',
    ],
    [
      ['unshare', 'c', '--token', 'no way'],
      "error: --token must be a share token or link, got 'no way' (usage)\n",
    ],
    [['download', 'not a link'], 'error: not a share link or token: not a link (usage)\n'],
    [
      ['login', '--token', KEY, '--endpoint', 'ftp://x'],
      "error: endpoint must be an http(s) URL, got 'ftp://x' (usage)\n",
    ],
    [
      ['config', 'set', 'web_url', 'nope'],
      "error: web_url must be an http(s) URL, got 'nope' (usage)\n",
    ],
    [
      ['comments', 'c', '--status', 'closed'],
      "error: --status must be open, resolved or all, got 'closed' (usage)\n",
    ],
    [['comments', 'c', '--version', '0'], positive('version')],
    [['comment', 'c', ''], 'error: the comment must be 1 to 10000 characters (usage)\n'],
    [
      ['comment', 'c', 'x'.repeat(10_001)],
      'error: the comment must be 1 to 10000 characters (usage)\n',
    ],
    [
      ['comment', 'c', 'x', '--quote', 'q'.repeat(2001)],
      'error: --quote must be 1 to 2000 characters (usage)\n',
    ],
    [
      ['comment', 'c', 'x', '--reply', '../k'],
      "error: --reply must be a comment id (letters and digits), got '../k' (usage)\n",
    ],
    [
      ['comment', 'c', 'x', '--reply', 'k', '--quote', 'q'],
      'error: --reply goes without --quote and --version: a reply is to the comment (usage)\n',
    ],
    [['comment', 'c'], 'error: Missing required positional argument: TEXT (usage)\n'],
    [
      ['resolve', 'c', 'a-b'],
      "error: comment_id must be a comment id (letters and digits), got 'a-b' (usage)\n",
    ],
    [['delete', 'c'], 'error: refusing to delete without confirmation: give --yes (usage)\n'],
    [
      ['unshare', 'c'],
      'error: refusing to revoke every link without confirmation: give --yes (usage)\n',
    ],
  ]

  it.each(cases)('%j', async (args, message, expected = []) => {
    requests = []
    const home = mkdtempSync(join(work, 'home-'))
    const res = await svc(home, args, { CANVAS_API_KEY: KEY, CANVAS_ENDPOINT: url })
    expect(res).toMatchObject({ code: 2, stdout: '', stderr: message })
    expect(requests).toEqual(expected)
  })
})

describe('the CLI’s flag rules are the API’s', () => {
  const ok = (check: () => unknown) => {
    try {
      check()
      return true
    } catch {
      return false
    }
  }
  const digits = fc.oneof(fc.nat().map(String), fc.constantFrom('0', '01', '1000000000', '1e3'))
  const text = fc.oneof(wild, fc.string(), fc.constantFrom('', 'x'.repeat(200), 'x'.repeat(201)))

  it('accepts and refuses the same values', () => {
    fc.assert(
      fc.property(text, (v) => {
        expect(
          ok(() => flags.title(v)),
          JSON.stringify(v),
        ).toBe(title.safeParse(v).success)
        expect(ok(() => flags.canvasId(v))).toBe(id.safeParse(v).success)
        expect(ok(() => flags.cursor(v))).toBe(cursorToken.safeParse(v).success)
        expect(ok(() => flags.visibility(v))).toBe(visibility.safeParse(v).success)
        expect(ok(() => flags.sharePassword(v))).toBe(
          createShareFields.password.safeParse(v).success,
        )
        expect(ok(() => flags.commentText(v, 'text'))).toBe(
          replyBody.shape.body.safeParse(v).success,
        )
        expect(ok(() => flags.commentId(v, 'comment_id'))).toBe(id.safeParse(v).success)
        expect(ok(() => flags.commentStatus(v))).toBe(
          (COMMENT_STATUSES as readonly string[]).includes(v),
        )
        expect(ok(() => flags.fileType(v))).toBe(
          ext.safeParse(v.replace(/^\./, '').toLowerCase()).success,
        )
      }),
      { numRuns: 3000 },
    )
    expect([flags.MAX_COMMENT_LENGTH, flags.MAX_QUOTE_LENGTH]).toEqual([
      MAX_COMMENT_LENGTH,
      MAX_QUOTE_LENGTH,
    ])
    const long = fc.oneof(
      text,
      fc
        .constantFrom(MAX_QUOTE_LENGTH, MAX_COMMENT_LENGTH)
        .chain((n) =>
          fc.constantFrom(
            'x'.repeat(n),
            'x'.repeat(n + 1),
            '😀'.repeat(n / 2),
            'x'.repeat(n - 1) + '\ud800',
          ),
        ),
    )
    fc.assert(
      fc.property(long, (v) => {
        expect(ok(() => flags.commentText(v, 'text'))).toBe(
          replyBody.shape.body.safeParse(v).success,
        )
        expect(ok(() => flags.commentText(v, '--quote', flags.MAX_QUOTE_LENGTH))).toBe(
          commentAnchor.safeParse({ quote: { exact: v } }).success,
        )
      }),
      { numRuns: 1000 },
    )
    const durations = fc.oneof(
      text,
      fc.tuple(digits, fc.constantFrom('s', 'm', 'h', 'd', 'w', 'y', '')).map(([n, u]) => n + u),
    )
    fc.assert(
      fc.property(durations, (v) => {
        expect(
          ok(() => flags.duration(v, 'expires')),
          v,
        ).toBe(duration.safeParse(v).success)
      }),
      { numRuns: 3000 },
    )
    fc.assert(
      fc.property(digits, (v) => {
        const n = Number(v)
        expect(
          ok(() => flags.positiveInt(v, 'max-views', flags.MAX_VIEWS)),
          v,
        ).toBe(/^\d+$/.test(v) && createShareFields.max_views.safeParse(n).success)
        expect(
          ok(() => flags.positiveInt(v, 'limit', flags.MAX_LIMIT)),
          v,
        ).toBe(/^\d+$/.test(v) && listQuery.safeParse({ limit: String(n) }).success)
        expect(
          ok(() => flags.positiveInt(v, 'version')),
          v,
        ).toBe(/^\d+$/.test(v) && versionParam.safeParse(String(n)).success)
      }),
      { numRuns: 3000 },
    )
  })
})
