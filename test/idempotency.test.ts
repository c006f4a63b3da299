import { env } from 'cloudflare:test'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  bytesOf,
  call,
  errorOf,
  json,
  metaOf,
  newAccount,
  newKey,
  presignAndPut,
  upload,
} from './support/api'
import { faultyBindings, pausingBindings } from './support/faults'
import {
  age,
  answerOf,
  canvasCount,
  expectReplay,
  freshKey,
  inProgress,
  keyRows,
  reused,
  withKey,
} from './support/idempotency'
import { withinOneWindow } from './support/limit-window'
import { snapshot } from './support/state'
import { sweep } from '../src/domain/sweep'
import { realServices } from './support/state'

// Idempotency-Key (docs/api.md): the first request under a key runs and its answer is
// kept; the same request again gets that answer, marked, with no second effect.

const HOUR = 3600_000

async function ready() {
  const account = await newAccount()
  const fileId = await upload(account.key, bytesOf(`content ${crypto.randomUUID()}`))
  const create = (key: string, title = 'Retried', init: Parameters<typeof call>[1] = {}) =>
    call('/v1/canvases', {
      method: 'POST',
      key: account.key,
      json: { file_id: fileId, title, ext: 'txt' },
      ...withKey(key),
      ...init,
    })
  return { account, fileId, create }
}

afterEach(() => vi.restoreAllMocks())

describe('a create sent with Idempotency-Key', () => {
  it('20 at once make one canvas; each answer is its 201 or 409 in progress', async () => {
    const { account, create } = await ready()
    const key = freshKey()
    const answers = await Promise.all(Array.from({ length: 20 }, () => create(key)))
    const bodies = await Promise.all(answers.map((r) => json(r)))
    const created = bodies.filter((_, i) => answers[i].status === 201)
    expect(created.length).toBeGreaterThanOrEqual(1)
    expect(new Set(created.map((b) => b.canvas_id)).size).toBe(1)
    answers.forEach((r, i) => {
      if (r.status !== 201) expect([r.status, bodies[i]]).toEqual([409, inProgress])
    })
    expect(await canvasCount(account.workspaceId)).toBe(1)
  })

  it('a retry after it answered replays it: same status, body and type, marked', async () => {
    const { account, create } = await ready()
    const key = freshKey()
    const res = await create(key)
    expect(res.status).toBe(201)
    expect(res.headers.get('Idempotent-Replayed')).toBeNull()
    const first = await answerOf(res)
    for (let i = 0; i < 2; i++) await expectReplay(await create(key), first)
    expect(await canvasCount(account.workspaceId)).toBe(1)
    expect(await keyRows(account.workspaceId)).toEqual([
      expect.objectContaining({ key, status: 201, content_type: 'application/json' }),
    ])
  })

  it('while the first is running, the same request is 409 idempotency_in_progress', async () => {
    const { account, create } = await ready()
    const key = freshKey()
    // Held right after its first round trip, the one that claims the key.
    const paused = pausingBindings(1)
    const first = create(key, 'Retried', { env: paused.bindings })
    await paused.paused
    const second = await create(key)
    expect([second.status, await json(second)]).toEqual([409, inProgress])
    expect(second.headers.get('Retry-After')).toBe('1')
    paused.resume()
    const answer = await answerOf(await first)
    expect(answer.status).toBe(201)
    await expectReplay(await create(key), answer)
    expect(await canvasCount(account.workspaceId)).toBe(1)
  })

  it('the same key for another body, path, query or method is 422 and does nothing', async () => {
    const { account, create } = await ready()
    const key = freshKey()
    const canvas = await json(await create(key))
    const before = await snapshot(account.workspaceId)
    const others = [
      create(key, 'Another title'),
      call('/v1/canvases?x=1', {
        method: 'POST',
        key: account.key,
        json: { file_id: canvas.file_id, title: 'Retried', ext: 'txt' },
        ...withKey(key),
      }),
      call(`/v1/canvases/${canvas.canvas_id}`, {
        method: 'DELETE',
        key: account.key,
        ...withKey(key),
      }),
      call(`/v1/canvases/${canvas.canvas_id}/permanent`, {
        method: 'POST',
        key: account.key,
        ...withKey(key),
      }),
    ]
    for (const res of await Promise.all(others)) {
      expect([res.status, await json(res)]).toEqual([422, reused])
    }
    expect(await snapshot(account.workspaceId)).toEqual(before)
  })

  it('a JSON body written differently is a different request', async () => {
    const { account, fileId } = await ready()
    const key = freshKey()
    const send = (body: string) =>
      call('/v1/canvases', {
        method: 'POST',
        key: account.key,
        body,
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
      })
    expect((await send(`{"file_id":"${fileId}","title":"t","ext":"txt"}`)).status).toBe(201)
    const spaced = await send(`{ "file_id": "${fileId}", "title": "t", "ext": "txt" }`)
    expect([spaced.status, await json(spaced)]).toEqual([422, reused])
  })

  it('a direct upload retried with a new multipart boundary is the same request', async () => {
    const account = await newAccount()
    const key = freshKey()
    const form = (text = 'direct bytes') => {
      const data = new FormData()
      data.append('file', new File([text], 'direct.txt'))
      data.append('title', 'Direct')
      return data
    }
    // The runtime picks a new boundary for each request made of a form, as browsers do.
    const typeOf = () => new Request('http://x', { method: 'POST', body: form() }).headers
    expect(typeOf().get('Content-Type')).not.toBe(typeOf().get('Content-Type'))
    const send = () =>
      call('/v1/canvases', { method: 'POST', key: account.key, body: form(), ...withKey(key) })
    const res = await send()
    expect(res.status).toBe(201)
    await expectReplay(await send(), await answerOf(res))
    // Other bytes in the file part are another request.
    const other = await call('/v1/canvases', {
      method: 'POST',
      key: account.key,
      body: form('direct bytez'),
      ...withKey(key),
    })
    expect([other.status, await json(other)]).toEqual([422, reused])
    expect(await canvasCount(account.workspaceId)).toBe(1)
  })

  it('keys are per workspace: the same key in two workspaces are two requests', async () => {
    const one = await ready()
    const two = await ready()
    const key = freshKey()
    const [a, b] = await Promise.all([one.create(key), two.create(key)])
    expect([a.status, b.status]).toEqual([201, 201])
    expect(b.headers.get('Idempotent-Replayed')).toBeNull()
    const [first, second] = [await answerOf(a), await answerOf(b)]
    expect(JSON.parse(first.body).canvas_id).not.toBe(JSON.parse(second.body).canvas_id)
    await expectReplay(await one.create(key), first)
    await expectReplay(await two.create(key), second)
    // Another key of the same workspace shares its keys.
    const other = await newKey(one.account.cookie)
    await expectReplay(await one.create(key, 'Retried', { key: other }), first)
  })

  it('without the header nothing is stored and every request runs', async () => {
    const { account, fileId } = await ready()
    for (let i = 0; i < 2; i++) {
      const res = await call('/v1/canvases', {
        method: 'POST',
        key: account.key,
        json: { file_id: fileId, title: 'Plain', ext: 'txt' },
      })
      expect(res.status).toBe(201)
      expect(res.headers.get('Idempotent-Replayed')).toBeNull()
    }
    expect(await canvasCount(account.workspaceId)).toBe(2)
    expect(await keyRows(account.workspaceId)).toEqual([])
  })

  it('a GET ignores the header', async () => {
    const { account } = await ready()
    const res = await call('/v1/me', { key: account.key, ...withKey('') })
    expect(res.status).toBe(200)
    expect(await keyRows(account.workspaceId)).toEqual([])
  })
})

describe('updates and deletes', () => {
  it('a content update retried with its key makes one version', async () => {
    const { account, create } = await ready()
    const canvas = await json(await create(freshKey()))
    const next = await upload(account.key, bytesOf(`version 2 ${crypto.randomUUID()}`))
    const key = freshKey()
    const patch = () =>
      call(`/v1/canvases/${canvas.canvas_id}`, {
        method: 'PATCH',
        key: account.key,
        json: { file_id: next },
        ...withKey(key),
      })
    const res = await patch()
    expect(res.status).toBe(200)
    const first = await answerOf(res)
    expect(JSON.parse(first.body).version).toBe(2)
    await expectReplay(await patch(), first)
    const { versions } = await json(
      await call(`/v1/canvases/${canvas.canvas_id}/versions`, { key: account.key }),
    )
    expect(versions.map((v: any) => v.version)).toEqual([2, 1])
  })

  it('a delete retried with its key replays its 200 instead of a 404', async () => {
    const { account, create } = await ready()
    const canvas = await json(await create(freshKey()))
    const key = freshKey()
    const remove = () =>
      call(`/v1/canvases/${canvas.canvas_id}`, {
        method: 'DELETE',
        key: account.key,
        ...withKey(key),
      })
    const res = await remove()
    expect([res.status, await json(res.clone())]).toEqual([200, { success: true }])
    await expectReplay(await remove(), await answerOf(res))
    const again = await call(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'DELETE',
      key: account.key,
    })
    expect(again.status).toBe(404)
  })

  it("the handler's own 4xx is kept and replayed", async () => {
    const { account } = await ready()
    const key = freshKey()
    const send = () =>
      call('/v1/canvases/AAAAAAAAAAAAAAAAAAAA', {
        method: 'PATCH',
        key: account.key,
        json: { title: 'nobody' },
        ...withKey(key),
      })
    const res = await send()
    expect(res.status).toBe(404)
    await expectReplay(await send(), await answerOf(res))
  })
})

describe('the header itself', () => {
  const bad = ['', ' ', 'x'.repeat(256), 'clé', 'a\tb', 'a\u007fb', 'a\u0001b']

  it.each(bad.map((v) => [JSON.stringify(v).slice(0, 30), v]))(
    '%s is 400 and does nothing',
    async (_, value) => {
      const { account, create } = await ready()
      const before = await snapshot(account.workspaceId)
      const res = await create(value)
      expect([res.status, await json(res)]).toEqual([
        400,
        errorOf('invalid_request', 'Idempotency-Key: must be 1 to 255 printable ASCII characters'),
      ])
      expect(await snapshot(account.workspaceId)).toEqual(before)
    },
  )

  it('255 printable characters, spaces and symbols included, are a key', async () => {
    const { create } = await ready()
    const key = ('~ !"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}' + freshKey()).padEnd(255, 'z')
    const res = await create(key)
    expect(res.status).toBe(201)
    await expectReplay(await create(key), await answerOf(res))
  })

  it('is judged after the API key: no key is still 401', async () => {
    const { create } = await ready()
    const res = await create('', 'Retried', { key: undefined })
    expect(res.status).toBe(401)
  })
})

describe('refused before running: nothing is stored', () => {
  it('a read-only key: 403 as before', async () => {
    const { account, create } = await ready()
    const readOnly = await newKey(account.cookie, ['read'])
    const before = await snapshot(account.workspaceId)
    const res = await create(freshKey(), 'Retried', { key: readOnly })
    expect([res.status, await json(res)]).toEqual([
      403,
      errorOf('forbidden', "this API key lacks the 'write' scope"),
    ])
    expect(await snapshot(account.workspaceId)).toEqual(before)
  })

  it('a revoked key: 401', async () => {
    const { account, create } = await ready()
    const keys = await json(await call('/auth/keys', { cookie: account.cookie }))
    await call(`/auth/keys/${keys.keys[0].key_id}`, { method: 'DELETE', cookie: account.cookie })
    const before = await snapshot(account.workspaceId)
    const res = await create(freshKey())
    expect([res.status, await json(res)]).toEqual([
      401,
      errorOf('unauthorized', 'invalid or revoked API key'),
    ])
    expect(await snapshot(account.workspaceId)).toEqual(before)
  })

  it('a rate-limited key: 429, its claim let go', async () => {
    const limited = { env: { API_LIMITER: env.API_LIMITER_SMALL } }
    // A new account each run: what a straddling run sent after the minute turned counts in the
    // next window.
    const { create, key } = await withinOneWindow(async () => {
      const { account, create } = await ready()
      let res: Response
      do res = await create(freshKey(), 'Retried', limited)
      while (res.status === 201)
      expect(res.status).toBe(429)
      const key = freshKey()
      const before = await snapshot(account.workspaceId)
      expect((await create(key, 'Retried', limited)).status).toBe(429)
      expect(await snapshot(account.workspaceId)).toEqual(before)
      return { create, key }
    })
    // The key was let go: the same request runs once the limit allows it.
    expect((await create(key)).status).toBe(201)
  })

  it('a body over the cap: 413, nothing claimed', async () => {
    const { account } = await ready()
    const before = await snapshot(account.workspaceId)
    const res = await call('/v1/canvases', {
      method: 'POST',
      key: account.key,
      body: JSON.stringify({ title: 'x'.repeat(1024 * 1024) }),
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': freshKey() },
    })
    expect([res.status, await json(res)]).toEqual([
      413,
      errorOf('payload_too_large', 'JSON body is over the limit of 1048576 bytes'),
    ])
    expect(await snapshot(account.workspaceId)).toEqual(before)
  })
})

describe('failures let the key go', () => {
  it('a 5xx keeps nothing; the retry runs; the log never shows the key', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    const { account, create } = await ready()
    const key = freshKey()
    // The create's own batch (after the key, and the file's row and head that the search index
    // reads) fails before it reaches D1.
    const { bindings, state } = faultyBindings({ at: 4, when: 'before' })
    const failed = await create(key, 'Retried', { env: bindings })
    expect(failed.status).toBe(500)
    expect(state.tripped).toBe('D1 batch (before)')
    const lines = logged.mock.calls.map((call) => call.map(String).join(' '))
    expect(lines.some((l) => l.includes('injected fault'))).toBe(true)
    expect(lines.filter((l) => l.includes(key))).toEqual([])
    expect(await keyRows(account.workspaceId)).toEqual([])
    const res = await create(key)
    expect(res.status).toBe(201)
    expect(res.headers.get('Idempotent-Replayed')).toBeNull()
    expect(await canvasCount(account.workspaceId)).toBe(1)
  })

  it('a failure to keep the answer still answers; the key stays claimed', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    const { account, create } = await ready()
    const key = freshKey()
    // Claim with the key lookup, the file's row and head (the search index's), the create's batch,
    // then keeping the answer: that one fails.
    const { bindings, state } = faultyBindings({ at: 5, when: 'before' })
    const res = await create(key, 'Retried', { env: bindings })
    expect(res.status).toBe(201)
    expect(state.tripped).toBe('D1 run (before)')
    expect(logged.mock.calls.map(String).join('\n')).toContain('injected fault')
    const retry = await create(key)
    expect([retry.status, await json(retry)]).toEqual([409, inProgress])
    expect(await canvasCount(account.workspaceId)).toBe(1)
  })

  it('an answer that asks for a retry is not kept: upload_incomplete, then the create', async () => {
    const account = await newAccount()
    const content = bytesOf(`pending ${crypto.randomUUID()}`)
    const { presign } = await presignAndPut(account.key, content)
    const key = freshKey()
    const create = () =>
      call('/v1/canvases', {
        method: 'POST',
        key: account.key,
        json: { file_id: presign.file_id, title: 'Later', ext: 'txt' },
        ...withKey(key),
      })
    const early = await create()
    expect([early.status, (await json(early)).error.code]).toEqual([400, 'upload_incomplete'])
    expect(await keyRows(account.workspaceId)).toEqual([])
    const meta = await metaOf(content)
    expect(
      (await call('/v1/upload/finalize', { method: 'POST', key: account.key, json: meta })).status,
    ).toBe(200)
    const res = await create()
    expect(res.status).toBe(201)
    await expectReplay(await create(), await answerOf(res))
  })
})

describe('expiry', () => {
  it('a row older than a day counts as absent: the request runs again, any body', async () => {
    const { account, create } = await ready()
    const key = freshKey()
    const first = await json(await create(key))
    await age(account.workspaceId, key, 24 * HOUR + 1000)
    const res = await create(key, 'Another title')
    expect(res.status).toBe(201)
    expect(res.headers.get('Idempotent-Replayed')).toBeNull()
    const second = await json(res)
    expect(second.canvas_id).not.toBe(first.canvas_id)
    await expectReplay(await create(key, 'Another title'), {
      status: 201,
      type: 'application/json',
      body: JSON.stringify(second),
    })
  })

  it('a claim whose request never answered is taken over after 5 minutes, not before', async () => {
    const { account, create } = await ready()
    const key = freshKey()
    await create(key)
    await env.DB.prepare(
      'UPDATE idempotency_keys SET status = NULL, body = NULL WHERE workspace_id = ? AND key = ?',
    )
      .bind(account.workspaceId, key)
      .run()
    const stuck = await create(key)
    expect([stuck.status, await json(stuck)]).toEqual([409, inProgress])
    await age(account.workspaceId, key, 5 * 60_000 + 1000)
    expect((await create(key)).status).toBe(201)
    expect(await canvasCount(account.workspaceId)).toBe(2)
  })

  it('the sweep removes rows past their expiry, by its own clock, and keeps the others', async () => {
    const { account, create } = await ready()
    const [old, fresh] = [freshKey(), freshKey()]
    await create(old)
    await create(fresh)
    const services = realServices()
    await age(account.workspaceId, old, 24 * HOUR)
    const summary = await sweep(services, { now: Date.now() })
    expect(summary.idempotency_keys).toBeGreaterThanOrEqual(1)
    expect((await keyRows(account.workspaceId)).map((r) => r.key)).toEqual([fresh])
    await sweep(services, { now: Date.now() + 24 * HOUR })
    expect(await keyRows(account.workspaceId)).toEqual([])
  })
})
