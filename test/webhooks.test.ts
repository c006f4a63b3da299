import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { call, errorOf, json, newAccount, newCanvas, newKey, type Account } from './support/api'
import {
  createWebhook,
  eventually,
  hook,
  received,
  receiverUrl,
  signatureHolds,
} from './support/webhooks'

// The webhook routes (docs/comments-and-webhooks.md): create, list, delete and the deliveries' log,
// the limit of 20, the write scope on every route, workspaces kept apart, and the addresses
// refused.

let owner: Account
let other: Account
beforeAll(async () => {
  ;[owner, other] = await Promise.all([newAccount(), newAccount()])
})

const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

describe('create, list, delete', () => {
  it('shows the secret once, keeps it encrypted, lists without it, deletes', async () => {
    const account = await newAccount()
    const { url } = hook()
    const res = await call('/v1/webhooks', {
      method: 'POST',
      key: account.key,
      json: { url, events: ['share.exhausted', 'canvas.deleted', 'canvas.deleted'] },
    })
    expect(res.status).toBe(201)
    const created = await json(res)
    expect(created).toEqual({
      webhook_id: expect.stringMatching(/^[A-Za-z0-9]{20}$/),
      url,
      // In the API's order, each once.
      events: ['canvas.deleted', 'share.exhausted'],
      exclude_self: false,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9]{40}$/),
      created_at: expect.stringMatching(TIME),
    })
    const stored = await env.DB.prepare('SELECT secret FROM webhooks WHERE webhook_id = ?')
      .bind(created.webhook_id)
      .first<{ secret: string }>()
    expect(stored!.secret).toMatch(/^v1\./)
    expect(stored!.secret).not.toContain(created.secret.slice(6))

    const list = await call('/v1/webhooks', { key: account.key })
    expect(list.status).toBe(200)
    const { secret: _secret, ...shown } = created
    expect(await json(list)).toEqual({ webhooks: [shown] })
    expect(
      await call(`/v1/webhooks/${created.webhook_id}/deliveries`, { key: account.key }),
    ).toSatisfy((r: Response) => r.status === 200)

    const deleted = await call(`/v1/webhooks/${created.webhook_id}`, {
      method: 'DELETE',
      key: account.key,
    })
    expect(deleted.status).toBe(200)
    expect(await json(deleted)).toEqual({ success: true })
    expect(await json(await call('/v1/webhooks', { key: account.key }))).toEqual({ webhooks: [] })
    const again = await call(`/v1/webhooks/${created.webhook_id}`, {
      method: 'DELETE',
      key: account.key,
    })
    expect(again.status).toBe(404)
    expect(await json(again)).toEqual(errorOf('webhook_not_found', 'webhook not found'))
  })

  it('answers an unknown or impossible id with webhook_not_found', async () => {
    for (const id of ['A'.repeat(20), 'not-an-id', 'a%2Fb', 'x'.repeat(80)]) {
      for (const [method, path] of [
        ['DELETE', `/v1/webhooks/${id}`],
        ['GET', `/v1/webhooks/${id}/deliveries`],
      ]) {
        const res = await call(path, { method, key: owner.key })
        expect(res.status, `${method} ${path}`).toBe(404)
        expect(await json(res)).toEqual(errorOf('webhook_not_found', 'webhook not found'))
      }
    }
  })

  it('refuses malformed bodies, naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ events: ['canvas.deleted'] }, 'url: Invalid input: expected string, received undefined'],
      [{ url: hook().url }, 'events: Invalid input: expected array, received undefined'],
      [{ url: hook().url, events: [] }, 'events: must name at least one event'],
      [
        { url: hook().url, events: ['canvas.created'] },
        'events.0: must be one of canvas.version_created, canvas.deleted, share.exhausted, comment.created, comment.replied, comment.resolved, review.requested, review.approved, review.changes_requested, audit.event',
      ],
      [
        { url: 42, events: ['canvas.deleted'] },
        'url: Invalid input: expected string, received number',
      ],
      [{ url: '', events: ['canvas.deleted'] }, 'url: must not be empty'],
      [
        { url: 'https://a.example.com/\n', events: ['canvas.deleted'] },
        'url: must not contain control characters',
      ],
      [
        { url: hook().url, events: ['canvas.deleted'], secret: 'mine' },
        'Unrecognized key: "secret"',
      ],
    ]
    for (const [body, message] of cases) {
      const res = await call('/v1/webhooks', { method: 'POST', key: owner.key, json: body })
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(await json(res), JSON.stringify(body)).toEqual(errorOf('invalid_request', message))
    }
  })
})

describe('a test event, and leaving out one’s own', () => {
  it('sends a signed webhook.test to that webhook alone, whatever it listens for, and logs it', async () => {
    const account = await newAccount()
    const place = hook()
    const made = await createWebhook(account.key, { url: place.url, events: ['share.exhausted'] })
    const bystander = hook()
    await createWebhook(account.key, { url: bystander.url, events: ['share.exhausted'] })
    const res = await call(`/v1/webhooks/${made.webhook_id}/test`, {
      method: 'POST',
      key: account.key,
    })
    expect(res.status).toBe(202)
    const sent = await json(res)
    expect(sent).toEqual({ event_id: expect.stringMatching(/^evt_/), type: 'webhook.test' })
    const [got] = await eventually(
      'the test event',
      () => received(place.name),
      (r) => r.length > 0,
    )
    const body = JSON.parse(got.body)
    expect(body).toMatchObject({
      id: sent.event_id,
      type: 'webhook.test',
      data: { webhook_id: made.webhook_id, actor: { kind: 'key', key_id: expect.any(String) } },
    })
    expect(await signatureHolds(made.secret, got.headers['canvas-signature'], got.body)).toBe(true)
    const log = await json(
      await call(`/v1/webhooks/${made.webhook_id}/deliveries`, { key: account.key }),
    )
    expect(log.deliveries[0]).toMatchObject({ event_id: sent.event_id, type: 'webhook.test' })
    expect(await received(bystander.name)).toEqual([])
    // Another workspace's webhook, or none, is not found.
    const theirs = await call(`/v1/webhooks/${made.webhook_id}/test`, {
      method: 'POST',
      key: other.key,
    })
    expect(theirs.status).toBe(404)
  })

  it('exclude_self: events its own key causes are not sent to it; another key’s are', async () => {
    const account = await newAccount()
    const place = hook()
    const made = await createWebhook(account.key, {
      url: place.url,
      events: ['comment.created'],
      exclude_self: true,
    })
    expect(made).toMatchObject({ exclude_self: true })
    const canvas = await newCanvas(account.key, 'Draft')
    const comment = (key: string, body: string) =>
      call(`/v1/canvases/${canvas.canvas_id}/comments`, { method: 'POST', key, json: { body } })
    expect((await comment(account.key, 'my own')).status).toBe(201)
    const colleague = await newKey(account.cookie)
    expect((await comment(colleague, 'from another key')).status).toBe(201)
    const got = await eventually(
      'one delivery',
      () => received(place.name),
      (r) => r.length > 0,
    )
    expect(JSON.parse(got[0].body).data.comment.body).toBe('from another key')
    // The first was fanned out before the second: none of it was kept for this webhook.
    const log = await json(
      await call(`/v1/webhooks/${made.webhook_id}/deliveries`, { key: account.key }),
    )
    expect(log.deliveries).toHaveLength(1)
  })
})

describe('migration 0020', () => {
  it('a webhook that heard replies as comment.created hears them as comment.replied', async () => {
    const account = await newAccount()
    const made = await createWebhook(account.key, { url: hook().url, events: ['comment.created'] })
    const other = await createWebhook(account.key, { url: hook().url, events: ['canvas.deleted'] })
    const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith('0020_'))!
    const update = migration.queries.find((q) => q.includes('UPDATE `webhooks`'))!
    // Twice: a second run adds nothing.
    await env.DB.prepare(update).run()
    await env.DB.prepare(update).run()
    const { webhooks } = await json(await call('/v1/webhooks', { key: account.key }))
    const eventsOf = (id: string) => webhooks.find((w: any) => w.webhook_id === id).events
    expect(eventsOf(made.webhook_id)).toEqual(['comment.created', 'comment.replied'])
    expect(eventsOf(other.webhook_id)).toEqual(['canvas.deleted'])
  })
})

describe('limits, scopes, workspaces', () => {
  it('allows 20 webhooks a workspace; the 21st is 409 webhook_limit', async () => {
    const account = await newAccount()
    const made = await Promise.all(
      Array.from({ length: 20 }, () => createWebhook(account.key, { url: hook().url })),
    )
    expect(new Set(made.map((w) => w.webhook_id)).size).toBe(20)
    const res = await call('/v1/webhooks', {
      method: 'POST',
      key: account.key,
      json: { url: hook().url, events: ['canvas.deleted'] },
    })
    expect(res.status).toBe(409)
    expect(await json(res)).toEqual(
      errorOf('webhook_limit', 'a workspace may have at most 20 webhooks; delete one first'),
    )
    expect((await json(await call('/v1/webhooks', { key: account.key }))).webhooks).toHaveLength(20)
    // Another workspace has its own 20; a deletion makes room.
    await createWebhook(other.key, { url: hook().url })
    await call(`/v1/webhooks/${made[0].webhook_id}`, { method: 'DELETE', key: account.key })
    await createWebhook(account.key, { url: hook().url })
  })

  it('holds the limit against concurrent creates', async () => {
    const account = await newAccount()
    const answers = await Promise.all(
      Array.from({ length: 30 }, () =>
        call('/v1/webhooks', {
          method: 'POST',
          key: account.key,
          json: { url: hook().url, events: ['canvas.deleted'] },
        }),
      ),
    )
    expect(answers.filter((r) => r.status === 201)).toHaveLength(20)
    expect(answers.filter((r) => r.status === 409)).toHaveLength(10)
  })

  it('needs the write scope on every route, reads included', async () => {
    const webhook = await createWebhook(owner.key, { url: hook().url })
    const readOnly = await newKey(owner.cookie, ['read'])
    for (const [method, path, body] of [
      ['POST', '/v1/webhooks', { url: hook().url, events: ['canvas.deleted'] }],
      ['GET', '/v1/webhooks', undefined],
      ['DELETE', `/v1/webhooks/${webhook.webhook_id}`, undefined],
      ['GET', `/v1/webhooks/${webhook.webhook_id}/deliveries`, undefined],
    ] as const) {
      const res = await call(path, { method, key: readOnly, json: body })
      expect(res.status, `${method} ${path}`).toBe(403)
      expect(await json(res)).toEqual(errorOf('forbidden', "this API key lacks the 'write' scope"))
    }
    const list = await json(await call('/v1/webhooks', { key: owner.key }))
    expect(list.webhooks.map((w: { webhook_id: string }) => w.webhook_id)).toContain(
      webhook.webhook_id,
    )
  })

  it("never shows or changes another workspace's webhooks", async () => {
    const mine = await createWebhook(owner.key, { url: hook().url })
    for (const [method, path] of [
      ['DELETE', `/v1/webhooks/${mine.webhook_id}`],
      ['GET', `/v1/webhooks/${mine.webhook_id}/deliveries`],
    ]) {
      const res = await call(path, { method, key: other.key })
      expect(res.status).toBe(404)
      expect(await json(res)).toEqual(errorOf('webhook_not_found', 'webhook not found'))
    }
    const theirs = await json(await call('/v1/webhooks', { key: other.key }))
    expect(JSON.stringify(theirs)).not.toContain(mine.webhook_id)
    const still = await env.DB.prepare('SELECT COUNT(*) AS n FROM webhooks WHERE webhook_id = ?')
      .bind(mine.webhook_id)
      .first<{ n: number }>()
    expect(still!.n).toBe(1)
  })
})

describe('where a webhook may send', () => {
  // The rules as production has them: no local addresses; names resolved by the stand-in DNS.
  const production = () => ({
    WEBHOOK_ALLOW_LOCAL: '',
    WEBHOOK_DNS_URL: `${receiverUrl()}/dns-query`,
  })
  const attempt = (url: string, extraEnv: Record<string, string>) =>
    call('/v1/webhooks', {
      method: 'POST',
      key: owner.key,
      json: { url, events: ['canvas.deleted'] },
      env: extraEnv,
    })

  const PRIVATE = 'url: must not be a private, loopback or reserved address'
  const LOCAL_NAME = 'url: must not be a local name'
  const RESOLVES = (host: string, address: string) =>
    `url: must not resolve to a private, loopback or reserved address (${host} is ${address})`
  const REFUSED: [string, string][] = [
    ['http://hooks.example.com/x', 'url: must use https'],
    ['ftp://hooks.example.com/x', 'url: must use https'],
    ['javascript:alert(1)', 'url: must use https'],
    ['hooks.example.com/x', 'url: must be an absolute URL, such as https://example.com/hooks'],
    ['https://', 'url: must be an absolute URL, such as https://example.com/hooks'],
    ['https://user:pass@hooks.example.com/', 'url: must not carry a user name or password'],
    ['https://token@hooks.example.com/', 'url: must not carry a user name or password'],
    ['https://hooks.example.com/#frag', 'url: must not have a #fragment'],
    ['https://hooks.example.com:22/', 'url: must use port 443, 80 or one from 1024 up'],
    ['https://hooks.example.com:25/', 'url: must use port 443, 80 or one from 1024 up'],
    ['https://127.0.0.1/', PRIVATE],
    ['https://127.1.2.3:8443/', PRIVATE],
    ['https://2130706433/', PRIVATE], // 127.0.0.1 as one number
    ['https://0x7f.0.0.1/', PRIVATE],
    ['https://0177.0.0.1/', PRIVATE],
    ['https://10.0.0.1/', PRIVATE],
    ['https://172.16.5.4/', PRIVATE],
    ['https://172.31.255.255/', PRIVATE],
    ['https://192.168.1.1/', PRIVATE],
    ['https://169.254.169.254/latest/meta-data/', PRIVATE],
    ['https://100.64.0.1/', PRIVATE], // carrier-grade NAT
    ['https://0.0.0.0/', PRIVATE],
    ['https://224.0.0.1/', PRIVATE],
    ['https://255.255.255.255/', PRIVATE],
    ['https://198.18.0.1/', PRIVATE],
    ['https://[::1]/', PRIVATE],
    ['https://[::]/', PRIVATE],
    ['https://[fc00::1]/', PRIVATE], // unique local
    ['https://[fd12:3456::1]/', PRIVATE],
    ['https://[fe80::1]/', PRIVATE], // link-local
    ['https://[ff02::1]/', PRIVATE],
    ['https://[::ffff:127.0.0.1]/', PRIVATE], // IPv4-mapped
    ['https://[::ffff:a9fe:a9fe]/', PRIVATE], // 169.254.169.254, mapped
    ['https://[64:ff9b::10.0.0.1]/', PRIVATE], // NAT64
    ['https://[2002:c0a8:101::1]/', PRIVATE], // 6to4 of 192.168.1.1
    ['https://[2001:db8::1]/', PRIVATE],
    ['https://localhost/', LOCAL_NAME],
    ['https://LOCALHOST./', LOCAL_NAME],
    ['https://api.localhost/', LOCAL_NAME],
    ['https://printer.local/', LOCAL_NAME],
    ['https://metadata.google.internal/', LOCAL_NAME],
    ['https://router.home.arpa/', LOCAL_NAME],
    ['https://1.0.0.127.in-addr.arpa/', LOCAL_NAME],
    ['https://intranet/', 'url: must be a public name (with a dot), such as hooks.example.com'],
    ['https://hooks.test/', 'url: must be a public name: that one never resolves'],
    ['https://hooks.invalid/', 'url: must be a public name: that one never resolves'],
    ['https://private.example.com/', RESOLVES('private.example.com', '10.1.2.3')],
    ['https://loopback.example.com/', RESOLVES('loopback.example.com', '127.0.0.1')],
    ['https://metadata.example.com/', RESOLVES('metadata.example.com', '169.254.169.254')],
    ['https://mixed.example.com/', RESOLVES('mixed.example.com', '192.168.0.7')],
    ['https://ula.example.com/', RESOLVES('ula.example.com', 'fd12:3456::1')],
    ['https://mapped.example.com/', RESOLVES('mapped.example.com', '::ffff:172.16.0.1')],
    [`https://hooks.example.com/${'a'.repeat(2040)}`, 'url: must be at most 2048 characters'],
  ]

  it('refuses what is not https on a public name or address, changing nothing', async () => {
    const before = await json(await call('/v1/webhooks', { key: owner.key }))
    for (const [url, message] of REFUSED) {
      const res = await attempt(url, production())
      expect(res.status, url).toBe(400)
      expect(await json(res), url).toEqual(errorOf('invalid_request', message))
    }
    expect(await json(await call('/v1/webhooks', { key: owner.key }))).toEqual(before)
  })

  it('accepts https on public names and addresses', async () => {
    for (const url of [
      'https://public.example.com/hooks',
      'https://hooks.example.com:8443/in?x=1', // no such name yet: each attempt asks again
      'https://93.184.215.14/',
      'https://[2606:4700::6810:84e5]/hook',
    ]) {
      const res = await attempt(url, production())
      expect(res.status, url).toBe(201)
      expect((await json(res)).url).toBe(new URL(url).href)
    }
  })

  it('WEBHOOK_ALLOW_LOCAL=1 allows http and loopback, and nothing else private', async () => {
    const local = { ...production(), WEBHOOK_ALLOW_LOCAL: '1' }
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://localhost:3000/',
      'http://[::1]:9000/',
      'https://loopback.example.com/',
    ]) {
      expect((await attempt(url, local)).status, url).toBe(201)
    }
    for (const [url, message] of [
      ['http://10.0.0.1/', PRIVATE],
      ['http://169.254.169.254/', PRIVATE],
      ['http://private.example.com/', RESOLVES('private.example.com', '10.1.2.3')],
      ['http://printer.local/', LOCAL_NAME],
    ]) {
      const res = await attempt(url, local)
      expect(res.status, url).toBe(400)
      expect(await json(res), url).toEqual(errorOf('invalid_request', message))
    }
  })

  it('cannot be made without WEBHOOK_ENCRYPTION_KEY, and says which var to set', async () => {
    const res = await attempt(hook().url, { WEBHOOK_ENCRYPTION_KEY: '' })
    expect(res.status).toBe(500)
    expect(await json(res)).toEqual(
      errorOf(
        'internal_error',
        'server misconfigured: WEBHOOK_ENCRYPTION_KEY is not set; generate one with `openssl rand -hex 32`',
      ),
    )
  })
})
