import { describe, expect, it } from 'vitest'
import { eventMessage } from '../src/domain/webhooks/events'
import { call, csrfOf, formPost, json, newAccount } from './support/api'
import { countRows } from './support/state'
import { consume, consumerServices, hook, SYSTEM } from './support/webhooks'

// The Settings page's webhooks: added by a form (the secret shown once), listed with their last
// deliveries, deleted; every form with the session's CSRF token, and refused as the API refuses.

/** The page a form's redirect lands on, taking the message it left. */
async function landing(res: Response, cookie: string) {
  expect(res.status).toBe(302)
  expect(res.headers.get('Location')).toBe('/settings#webhooks')
  const flash = /canvas_flash=[^;]*/.exec(res.headers.get('Set-Cookie') ?? '')?.[0]
  return (await call('/settings', { cookie: [cookie, flash].filter(Boolean).join('; ') })).text()
}

const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ')

describe('webhooks on the Settings page', () => {
  it('adds one, shows its secret once, lists it with its deliveries, deletes it', async () => {
    const account = await newAccount()
    const csrf = await csrfOf(account.cookie)
    const empty = await (await call('/settings', { cookie: account.cookie })).text()
    expect(empty).toContain('id="webhooks"')
    expect(text(empty)).toContain('No webhooks yet.')

    const place = hook()
    const body = new URLSearchParams({ _csrf: csrf, url: place.url })
    body.append('events', 'canvas.deleted')
    body.append('events', 'share.exhausted')
    const added = await call('/settings/webhooks', {
      method: 'POST',
      body: body.toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      cookie: account.cookie,
    })
    const page = await landing(added, account.cookie)
    const secret = /<code class="block" id="copy-0">(whsec_[A-Za-z0-9]{40})<\/code>/.exec(page)?.[1]
    expect(secret).toBeDefined()
    // The message sits in the webhooks' part of the page, not the keys'.
    expect(page.indexOf(secret!)).toBeGreaterThan(page.indexOf('id="webhooks"'))
    const { webhooks } = await json(await call('/v1/webhooks', { key: account.key }))
    expect(webhooks).toEqual([
      expect.objectContaining({ url: place.url, events: ['canvas.deleted', 'share.exhausted'] }),
    ])
    const id = webhooks[0].webhook_id
    // Shown once: the page again holds no secret.
    const again = await (await call('/settings', { cookie: account.cookie })).text()
    expect(again).not.toContain(secret)
    expect(again).toContain(`id="webhook-${id}"`)
    expect(text(again)).toContain('canvas.deleted, share.exhausted')
    expect(text(again)).toContain('Nothing sent yet.')

    // A delivery, sent by the consumer, is listed.
    const message = eventMessage(
      {
        type: 'canvas.deleted',
        workspaceId: account.workspaceId,
        data: { canvas_id: 'x' },
        actor: SYSTEM,
      },
      Date.now(),
    )
    if (message.kind !== 'event') throw new Error('not an event')
    await consume(consumerServices(Date.now), [message])
    await consume(consumerServices(Date.now), [
      { kind: 'attempt', webhook_id: id, event_id: message.event.id, attempt: 1 },
    ])
    const listed = text(await (await call('/settings', { cookie: account.cookie })).text())
    expect(listed).toContain(message.event.id)
    expect(listed).toMatch(/canvas\.deleted 1 HTTP 200 delivered \d{4}-/)

    // Send a test event: said, and on its way through the queue like any event.
    const tested = await call(`/settings/webhooks/${id}/test`, {
      ...formPost({ _csrf: csrf }),
      cookie: account.cookie,
    })
    expect(text(await landing(tested, account.cookie))).toMatch(
      /A test event \(evt_[A-Za-z0-9]+\) is on its way/,
    )

    const deleted = await call(`/settings/webhooks/${id}/delete`, {
      ...formPost({ _csrf: csrf }),
      cookie: account.cookie,
    })
    const after = await landing(deleted, account.cookie)
    expect(text(after)).toContain('The webhook was deleted: nothing more is sent to it.')
    expect(text(after)).toContain('No webhooks yet.')
    expect(
      await countRows('SELECT COUNT(*) AS n FROM webhook_deliveries WHERE webhook_id = ?', id),
    ).toBe(0)
  })

  it('refuses what the API refuses, saying why beside the form, adding nothing', async () => {
    const account = await newAccount()
    const csrf = await csrfOf(account.cookie)
    for (const [fields, message] of [
      [{ url: 'http://hooks.example.com/x', events: 'canvas.deleted' }, 'The URL must use https.'],
      [
        { url: 'https://10.0.0.1/', events: 'canvas.deleted' },
        'The URL must not be a private, loopback or reserved address.',
      ],
      [{ url: hook().url }, 'The events must name at least one event.'],
      [{ url: '', events: 'canvas.deleted' }, 'The url must not be empty.'],
      [{ url: hook().url, events: 'canvas.created' }, 'The events must be one of'],
    ] as const) {
      const res = await call('/settings/webhooks', {
        ...formPost({ _csrf: csrf, ...fields }),
        cookie: account.cookie,
        env: { WEBHOOK_ALLOW_LOCAL: '' },
      })
      expect(res.status, message).toBe(400)
      const page = await res.text()
      expect(page.indexOf(message), message).toBeGreaterThan(page.indexOf('id="webhooks"'))
    }
    expect(
      await countRows(
        'SELECT COUNT(*) AS n FROM webhooks WHERE workspace_id = ?',
        account.workspaceId,
      ),
    ).toBe(0)
  })

  it('needs the session’s CSRF token, and deletes only the session’s own', async () => {
    const [owner, other] = await Promise.all([newAccount(), newAccount()])
    const forged = await call('/settings/webhooks', {
      ...formPost({ _csrf: '0'.repeat(32), url: hook().url, events: 'canvas.deleted' }),
      cookie: owner.cookie,
    })
    expect(forged.status).toBe(403)
    const res = await call('/v1/webhooks', {
      method: 'POST',
      key: owner.key,
      json: { url: hook().url, events: ['canvas.deleted'] },
    })
    const { webhook_id } = await json(res)
    const theirs = await call(`/settings/webhooks/${webhook_id}/delete`, {
      ...formPost({ _csrf: await csrfOf(other.cookie) }),
      cookie: other.cookie,
    })
    expect(text(await landing(theirs, other.cookie))).toContain('That webhook was deleted already.')
    expect(
      await countRows('SELECT COUNT(*) AS n FROM webhooks WHERE webhook_id = ?', webhook_id),
    ).toBe(1)
  })
})
