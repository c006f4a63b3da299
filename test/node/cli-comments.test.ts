import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { svc } from './support/cli'
import { newDevAccount, sharedDevServer, SETUP_MS } from './support/dev-server'
import { callApi, type ApiInit } from './support/api.ts'

// `svc comments`, `svc comment` and `svc resolve`, built, against a real `wrangler dev`: the
// review loop as a person or an agent at the terminal runs it.

let server: { url: string }
let key: string
let readKey: string
let work: string

beforeAll(async () => {
  server = await sharedDevServer()
  const account = await newDevAccount(server.url, 'comments@example.com')
  key = account.key
  readKey = await account.newKey(['read'])
  work = mkdtempSync(join(tmpdir(), 'canvas-comments-'))
}, SETUP_MS)

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true })
})

const run = (args: string[], apiKey = key) =>
  svc(mkdtempSync(join(work, 'home-')), args, {
    CANVAS_API_KEY: apiKey,
    CANVAS_ENDPOINT: server.url,
  })

async function ok(args: string[]) {
  const res = await run(args)
  expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(0)
  return res.stdout
}

const json = async (args: string[]) => JSON.parse(await ok([...args, '--json']))

async function api(path: string, init?: ApiInit) {
  const res = await callApi(server.url, key, path, init)
  return { status: res.status, body: await res.json() }
}

async function newCanvas(text: string) {
  const file = join(mkdtempSync(join(work, 'file-')), 'plan.md')
  writeFileSync(file, text)
  const canvas = await json(['push', file])
  return { id: canvas.canvas_id as string, file }
}

describe('svc comments, comment, resolve', () => {
  it('comments with a quote, lists, replies, resolves and reopens', async () => {
    const { id, file } = await newCanvas('# Plan\n\nShip it on Friday.')
    const made = await ok(['comment', id, 'Why Friday?', '--quote', 'on Friday'])
    const [commentId, about] = made.trimEnd().split('\n')
    expect(commentId).toMatch(/^[A-Za-z0-9]+$/)
    expect(about).toBe(`open comment on version 1 of ${id}`)
    writeFileSync(file, '# Plan\n\nShip it on Monday.')
    await json(['push', file, '--id', id])

    expect(await ok(['comments', id])).toBe(
      [
        `${commentId}  open · comments (member) · just now · on version 1 (now 2)`,
        '  > on Friday',
        '  Why Friday?',
        '',
      ].join('\n'),
    )
    // An unquoted sentence is one comment; its lines are kept.
    const replied = await ok(['comment', id, '--reply', commentId, 'Moved', 'to', 'Monday.'])
    const [replyId, said] = replied.trimEnd().split('\n')
    expect(said).toBe(`replied to comment ${commentId} of ${id}`)
    const whole = (await json(['comment', id, 'Line one\nline two'])).comment_id
    expect(await ok(['comments', id])).toBe(
      [
        `${commentId}  open · comments (member) · just now · on version 1 (now 2)`,
        '  > on Friday',
        '  Why Friday?',
        '    comments (member) · just now',
        '      Moved to Monday.',
        '',
        `${whole}  open · comments (member) · just now`,
        '  Line one',
        '  line two',
        '',
      ].join('\n'),
    )

    expect(await ok(['resolve', id, commentId])).toBe(`comment ${commentId} is resolved\n`)
    expect(await ok(['resolve', id, whole])).toBe(`comment ${whole} is resolved\n`)
    expect(await ok(['comments', id])).toBe('no open comments\n')
    expect(await ok(['comments', id, '--status', 'resolved', '--version', '2'])).toMatch(
      new RegExp(`^${whole}  resolved just now · comments \\(member\\) · just now\\n`),
    )

    const all = await json(['comments', id, '--status', 'all'])
    expect(all).toEqual((await api(`/v1/canvases/${id}/comments?status=all`)).body)
    expect(all.comments[0]).toMatchObject({
      comment_id: commentId,
      version: 1,
      anchor: { quote: { exact: 'on Friday' } },
      status: 'resolved',
      replies: [{ reply_id: replyId, body: 'Moved to Monday.' }],
    })
    const reopened = await json(['resolve', id, commentId, '--reopen'])
    expect(reopened).toEqual({ ...all.comments[0], status: 'open', resolved_at: null })
    expect((await json(['comments', id])).comments.map((c: any) => c.comment_id)).toEqual([
      commentId,
    ])
  })

  it('share --comments makes a link whose readers comment; comments shows them', async () => {
    const { id } = await newCanvas('Ship it.')
    const shared = await run(['share', id, '--comments'])
    expect(shared.code, shared.stderr).toBe(0)
    expect(shared.stderr).toMatch(/ · open to comments\n$/)
    const token = shared.stdout.trim().split('/s/')[1]
    const plain = await json(['share', id])
    expect(plain.allow_comments).toBe(false)
    const refused = await fetch(`${server.url}/share/${plain.token}/comments`)
    expect(refused.status).toBe(403)
    const posted = await fetch(`${server.url}/share/${token}/comments`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ body: 'Love it', name: 'Ada' }),
    })
    expect(posted.status).toBe(201)
    const { comment_id: commentId } = await posted.json()
    expect(await ok(['comments', id])).toBe(
      `${commentId}  open · Ada (visitor) · just now\n  Love it\n`,
    )
  })

  it('--json prints the API’s objects: a comment of a version, a reply', async () => {
    const { id } = await newCanvas('one')
    const comment = await json(['comment', id, 'On the first', '--version', '1'])
    expect(comment).toEqual({
      comment_id: expect.stringMatching(/^[A-Za-z0-9]+$/),
      canvas_id: id,
      version: 1,
      anchor: null,
      body: 'On the first',
      author: { name: 'comments', kind: 'member' },
      status: 'open',
      created_at: expect.any(String),
      resolved_at: null,
      replies: [],
    })
    const reply = await json(['comment', id, '--reply', comment.comment_id, 'Yes'])
    expect(reply).toEqual({
      reply_id: expect.stringMatching(/^[A-Za-z0-9]+$/),
      body: 'Yes',
      author: { name: 'comments', kind: 'member' },
      created_at: expect.any(String),
    })
    const listed = (await api(`/v1/canvases/${id}/comments`)).body.comments
    expect(listed).toEqual([{ ...comment, replies: [reply] }])
  })

  it('--wait answers as soon as someone comments, and says where to wait from next', async () => {
    const { id } = await newCanvas('Waiting for review')
    const started = Date.now()
    const waiting = run(['comments', id, '--wait', '--timeout', '20', '--json'])
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const posted = await api(`/v1/canvases/${id}/comments`, {
      method: 'POST',
      json: { body: 'One question' },
    })
    expect(posted.status).toBe(201)
    const res = await waiting
    expect(res.code, res.stderr).toBe(0)
    expect(Date.now() - started).toBeLessThan(15_000)
    const news = JSON.parse(res.stdout)
    expect(news.comments.map((c: { body: string }) => c.body)).toEqual(['One question'])
    expect(Date.parse(news.since)).toBeGreaterThan(0)
    // From there, nothing new: said so at the timeout.
    const quiet = await run(['comments', id, '--wait', '--timeout', '1', '--since', news.since])
    expect(quiet.code).toBe(0)
    expect(quiet.stdout).toBe('nothing new in 1 s\n')
    expect(quiet.stderr).toMatch(/^to wait for what comes next: --since \d{4}-[\d:.TZ-]+\n$/)
    const misused = await run(['comments', id, '--since', news.since])
    expect(misused).toMatchObject({
      code: 2,
      stderr: 'error: --timeout and --since go with --wait (usage)\n',
    })
    const tooLong = await run(['comments', id, '--wait', '--timeout', '61'])
    expect(tooLong).toMatchObject({
      code: 2,
      stderr: 'error: --timeout must be at most 60 (usage)\n',
    })
  })

  it('says what is missing or refused, in words and as JSON, changing nothing', async () => {
    const { id } = await newCanvas('text')
    const missing = await run(['resolve', id, 'nope'])
    expect(missing).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `error: canvas ${id} has no comment nope; see svc comments ${id} --status all (comment_not_found)\n`,
    })
    const asJson = await run(['comment', id, '--reply', 'nope', 'hi', '--json'])
    expect(asJson.code).toBe(1)
    expect(JSON.parse(asJson.stderr)).toEqual({
      error: {
        code: 'comment_not_found',
        message: `canvas ${id} has no comment nope; see svc comments ${id} --status all`,
      },
    })
    for (const args of [
      ['comments', 'gone'],
      ['comment', 'gone', 'hi'],
      ['resolve', 'gone', 'k'],
    ]) {
      expect(await run(args), args.join(' ')).toMatchObject({
        code: 1,
        stderr: 'error: canvas not found (canvas_not_found)\n',
      })
    }
    const readOnly = await run(['comment', id, 'hi'], readKey)
    expect(readOnly).toMatchObject({ code: 1, stdout: '' })
    expect(readOnly.stderr).toMatch(/^error: .+ \(forbidden\)\n$/)
    expect((await run(['comments', id], readKey)).stdout).toBe('no open comments\n')
    expect((await api(`/v1/canvases/${id}/comments?status=all`)).body).toEqual({ comments: [] })
  })

  it('shows a server’s control and bidi characters escaped, never as they came', async () => {
    const { id } = await newCanvas('Ship it.')
    const hostile = '\u001b]0;PWNED\u0007\u001b[2J \u202eevil'
    const posted = await api(`/v1/canvases/${id}/comments`, {
      method: 'POST',
      json: { body: `${hostile}\nsecond line`, anchor: { quote: { exact: `it${hostile}` } } },
    })
    expect(posted.status).toBe(201)
    await api(`/v1/canvases/${id}/comments/${posted.body.comment_id}/replies`, {
      method: 'POST',
      json: { body: hostile },
    })
    const shown = '\\u001b]0;PWNED\\u0007\\u001b[2J \\u202eevil'
    const out = await ok(['comments', id])
    expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/)
    expect(out.split('\n').slice(1)).toEqual([
      `  > it${shown}`,
      `  ${shown}`,
      '  second line',
      '    comments (member) · just now',
      `      ${shown}`,
      '',
    ])
    const raw = (await run(['comments', id, '--json'])).stdout
    expect(raw).toContain('\\u202eevil')
    expect(raw).not.toContain('\u202e')
    expect(JSON.parse(raw).comments[0].replies[0].body).toBe(hostile)
  })
})
