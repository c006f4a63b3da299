import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { clientNetwork } from '../src/lib/addresses'
import { bytesOf, call, newAccount, newCanvas, upload } from './support/api'
import { freshNetwork, withinOneWindow } from './support/limit-window'

// Budgets counted per client (docs/configuration.md) count an IPv4 client by its address and an
// IPv6 client by its /64: a subscriber is usually given a whole /64, and could otherwise start
// every budget afresh by taking another of its addresses. One helper makes the subject of every
// such count; these tests reach three of them from addresses of one /64 and of two.

describe('the network a client address counts as', () => {
  it('an IPv4 address is itself; an IPv6 address its /64, however it is written', () => {
    expect(clientNetwork('203.0.113.7')).toBe('203.0.113.7')
    const spellings = [
      '2001:db8:1:2::1',
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:0DB8:0001:0002:0000:0000:0000:0009',
      '2001:db8:1:2:a:b:1.2.3.4',
    ]
    for (const address of spellings)
      expect(clientNetwork(address), address).toBe('2001:db8:1:2::/64')
    expect(clientNetwork('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64')
    // An IPv4 client written in IPv6 is that IPv4 client.
    expect(clientNetwork('::ffff:203.0.113.7')).toBe('203.0.113.7')
    expect(clientNetwork('::ffff:cb00:7107')).toBe('203.0.113.7')
    // Anything else counts as given, apart from every address.
    for (const odd of ['local', '', 'not an address', '1:2:3']) expect(clientNetwork(odd)).toBe(odd)
  })
})

/** Five addresses of one /64 spend its budget; a sixth of it is refused, one of another is not. */
async function sharedByNetwork(send: (ip: string) => Promise<Response>, allowed: number) {
  await withinOneWindow(async () => {
    const network = freshNetwork()
    const statuses = []
    for (let i = 1; i <= 6; i++) statuses.push((await send(`${network}::${i.toString(16)}`)).status)
    expect(statuses).toEqual([...Array(5).fill(allowed), 429])
    expect((await send(`${network}:ffff:ffff:ffff:ffff`)).status).toBe(429)
    expect((await send(`${freshNetwork()}::1`)).status).toBe(allowed)
  })
}

describe('budgets per client, from addresses of one /64 and of two', () => {
  it('logins', async () => {
    const limited = { AUTH_LIMITER: env.AUTH_LIMITER_SMALL }
    const login = (ip: string) =>
      call('/auth/login', {
        method: 'POST',
        json: { email: 'nobody@example.com', password: 'whatever1' },
        ip,
        env: limited,
      })
    await sharedByNetwork(login, 401)
  })

  it('comments through a share link', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'Hello')
    const link = await call(`/v1/canvases/${canvas.canvas_id}/shares`, {
      method: 'POST',
      key: account.key,
      json: { allow_comments: true },
    })
    const { token } = (await link.json()) as { token: string }
    const limited = { COMMENT_LIMITER: env.AUTH_LIMITER_SMALL }
    const post = (ip: string) =>
      call(`/share/${token}/comments`, {
        method: 'POST',
        json: { body: 'Hi', name: 'Ada' },
        ip,
        env: limited,
      })
    await sharedByNetwork(post, 201)
  })

  it('archive downloads of a public canvas', async () => {
    const account = await newAccount()
    const fileId = await upload(account.key, bytesOf('y'.repeat(1000)))
    const items = Array.from({ length: 10 }, (_, i) => ({ path: `copy${i}.txt`, file_id: fileId }))
    const made = await call('/v1/canvases', {
      method: 'POST',
      key: account.key,
      json: { title: 'Many', permanent: true, items },
    })
    const { canvas_id: id } = (await made.json()) as { canvas_id: string }
    const visibility = { visibility: 'public' }
    await call(`/v1/canvases/${id}`, { method: 'PATCH', key: account.key, json: visibility })
    // Room for two archives of a little over 10 KB per client and hour.
    const budget = { PUBLIC_ARCHIVE_BYTES_PER_HOUR: '25000' }
    const visit = async (ip: string) => {
      const res = await call(`/c/${id}/download`, { ip, env: budget })
      await res.arrayBuffer()
      return res.status
    }
    const network = freshNetwork()
    expect([await visit(`${network}::1`), await visit(`${network}::2`)]).toEqual([200, 200])
    expect(await visit(`${network}:1:2:3:4`)).toBe(429)
    expect(await visit(`${freshNetwork()}::1`)).toBe(200)
  })
})
