import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newDevAccount, sharedDevServer, SETUP_MS } from './support/dev-server'
import { startReceiver, type Received, type Receiver } from './support/receiver'
import { callApi, type ApiInit } from './support/api.ts'

// Webhooks end to end: the shared `wrangler dev` (WEBHOOK_ALLOW_LOCAL=1), its Miniflare queue and
// consumer, and a receiver on 127.0.0.1. A published version arrives signed, and
// docs/comments-and-webhooks.md's recipe verifies it; a receiver that fails first gets the retry,
// with the same id.

const PAGE = readFileSync(new URL('../../docs/comments-and-webhooks.md', import.meta.url), 'utf8')

let server: { url: string }
let receiver: Receiver
let key: string
let work: string
let verify: (header: string, body: string, secret: string) => boolean

beforeAll(async () => {
  receiver = await startReceiver()
  server = await sharedDevServer()
  key = (await newDevAccount(server.url, 'hooks@example.com')).key
  // The verification recipe of docs/comments-and-webhooks.md, as a receiver would paste it.
  work = mkdtempSync(join(tmpdir(), 'canvas-hooks-'))
  const section = PAGE.slice(PAGE.indexOf('### Verifying a delivery'))
  const code = /```js\n([\s\S]*?)```/.exec(section)![1]
  writeFileSync(join(work, 'verify.mjs'), code)
  verify = (await import(pathToFileURL(join(work, 'verify.mjs')).href)).verify
}, SETUP_MS)

afterAll(async () => {
  await receiver?.stop()
  if (work) rmSync(work, { recursive: true, force: true })
})

const api = (path: string, init?: ApiInit) => callApi(server.url, key, path, init)

async function webhook(answers: string) {
  const name = `dev-${crypto.randomUUID().slice(0, 8)}`
  const res = await api('/v1/webhooks', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      url: `${receiver.url}/hook/${name}?answers=${answers}`,
      events: ['canvas.version_created'],
    }),
  })
  expect(res.status).toBe(201)
  return { name, ...((await res.json()) as { webhook_id: string; secret: string }) }
}

async function publish(text: string) {
  const form = new FormData()
  form.set('file', new File([text], 'notes.md', { type: 'text/markdown' }))
  form.set('title', 'Notes')
  const res = await api('/v1/canvases', { method: 'POST', body: form })
  expect(res.status).toBe(201)
  return (await res.json()) as { canvas_id: string }
}

async function arrivals(name: string, count: number, timeoutMs: number): Promise<Received[]> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const got = (await (await fetch(`${receiver.url}/received/${name}`)).json()) as Received[]
    if (got.length >= count) return got
    if (Date.now() > deadline) throw new Error(`${name}: ${got.length} of ${count} arrived`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe('webhooks against wrangler dev', () => {
  it('a published canvas arrives signed, and the recipe of the docs verifies it', async () => {
    const hook = await webhook('200')
    const canvas = await publish('# First')
    const [got] = await arrivals(hook.name, 1, 20_000)
    const body = JSON.parse(got.body)
    expect(body).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      type: 'canvas.version_created',
      data: { canvas: { canvas_id: canvas.canvas_id, version: 1 }, version: { version: 1 } },
    })
    expect(got.headers['content-type']).toBe('application/json')
    expect(verify(got.headers['canvas-signature'], got.body, hook.secret)).toBe(true)
    expect(verify(got.headers['canvas-signature'], got.body.replace('1', '2'), hook.secret)).toBe(
      false,
    )
    expect(verify(got.headers['canvas-signature'], got.body, `${hook.secret}x`)).toBe(false)
  })

  it('a receiver that answers 500 first is sent the same event again, with the same id', async () => {
    const hook = await webhook('500,200')
    await publish('# Second')
    // The first retry is due 30 s after the failure: the queue holds it until then.
    const got = await arrivals(hook.name, 2, 60_000)
    expect(got.map((r) => JSON.parse(r.body).id)).toEqual([
      JSON.parse(got[0].body).id,
      JSON.parse(got[0].body).id,
    ])
    expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(25_000)
    // Recorded once the receiver's answer is in: asked until it is.
    type Log = { deliveries: { attempts: number; last_status: number; delivered_at: string }[] }
    let log: Log
    const deadline = Date.now() + 10_000
    do {
      log = (await (await api(`/v1/webhooks/${hook.webhook_id}/deliveries`)).json()) as Log
    } while (!log.deliveries[0]?.delivered_at && Date.now() < deadline)
    expect(log.deliveries).toMatchObject([
      { attempts: 2, last_status: 200, delivered_at: expect.any(String) },
    ])
  }, 120_000)
})
