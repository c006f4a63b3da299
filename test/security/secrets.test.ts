/// <reference types="vite/client" />
import { env } from 'cloudflare:test'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { constantTimeEqual } from '../../src/lib/crypto'
import {
  bytesOf,
  call,
  formPost,
  json,
  newCanvas,
  sessionCookie,
  SETUP_TOKEN,
  sha256,
} from '../support/api'
import { faultyBindings } from '../support/faults'

// Secrets are shown once, at creation, and never again: not in answers, error messages or logs.
// Their stored forms (key hashes, password hashes) never reach an answer or a log either.

afterEach(() => {
  vi.restoreAllMocks()
})

/** Every line the Worker logs while `work` runs. */
async function captureLogs(work: () => Promise<void>): Promise<string[]> {
  const lines: string[] = []
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      lines.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '))
    })
  }
  await work()
  return lines
}

describe('secrets', () => {
  it('never reappear in answers, error messages or logs after creation', async () => {
    const answers: string[] = []
    const record = async (res: Response) => {
      answers.push([...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n'))
      answers.push(await res.clone().text())
      return res
    }
    const password = `account password ${crypto.randomUUID()}`
    const sharePassword = `share password ${crypto.randomUUID()}`
    const email = `secrets-${crypto.randomUUID().slice(0, 8)}@example.com`
    let key = ''
    let readKey = ''
    let token = ''

    const logs = await captureLogs(async () => {
      const signup = await record(
        await call('/auth/signup', {
          method: 'POST',
          json: { email, password, setup_token: SETUP_TOKEN },
        }),
      )
      const cookie = sessionCookie(signup)
      // The one answer that shows a key: not recorded.
      key = (await json(await call('/auth/keys', { method: 'POST', cookie, json: { name: 'k' } })))
        .key
      readKey = (
        await json(
          await call('/auth/keys', {
            method: 'POST',
            cookie,
            json: { name: 'r', scopes: ['read'] },
          }),
        )
      ).key
      await record(await call('/auth/keys', { cookie }))
      await record(await call('/settings', { cookie }))
      await record(await call('/v1/me', { key }))
      const canvas = await newCanvas(key, 'secret keeper', { permanent: true })
      const id = canvas.canvas_id
      await record(await call(`/v1/canvases/${id}`, { key }))
      await record(await call(`/v1/canvases/${id}`, { method: 'DELETE', key: readKey }))
      // Near misses and the key in the wrong place: the refusal never repeats what was sent.
      const nearMiss = key.slice(0, -1) + (key.endsWith('a') ? 'b' : 'a')
      await record(await call('/v1/me', { key: nearMiss }))
      await record(await call('/v1/me', { headers: { Authorization: `Basic ${key}` } }))
      await record(await call('/v1/me', { headers: { Authorization: `Bearer ${key} ${key}` } }))
      await record(
        await call('/auth/login', { method: 'POST', json: { email, password: `${password}x` } }),
      )
      await record(await call('/login', formPost({ email, password: `${password}x` })))
      // An internal error while the key is in use: the log carries the error, not the request.
      await record(
        await call('/v1/me', { key, env: faultyBindings({ at: 1, when: 'before' }).bindings }),
      )

      const share = await record(
        await call(`/v1/canvases/${id}/shares`, {
          method: 'POST',
          key,
          json: { password: sharePassword, max_views: 5 },
        }),
      )
      token = (await json(share)).token
      await record(await call(`/v1/canvases/${id}/shares`, { key }))
      await record(await call(`/share/${token}`))
      await record(await call(`/share/${token}`, { headers: { 'X-Share-Password': 'wrong one' } }))
      await record(
        await call(`/share/${token}/content`, { headers: { 'X-Share-Password': sharePassword } }),
      )
      await record(await call(`/s/${token}`, formPost({ password: `${sharePassword}x` })))
      await record(await call(`/s/${token}`, formPost({ password: sharePassword })))
      await record(await call(`/c/${id}`, { cookie }))
    })

    const keyHash = await sha256(bytesOf(key))
    const stored = await env.DB.prepare(
      `SELECT u.password_hash AS account, s.password_hash AS share FROM users u, share_links s
       WHERE u.email = ? AND s.token = ?`,
    )
      .bind(email, token)
      .first<{ account: string; share: string }>()
    const secrets = {
      'API key': key,
      'read-only API key': readKey,
      'API key hash': keyHash,
      'account password': password,
      'share password': sharePassword,
      'account password hash': stored!.account.split('$').at(-1)!,
      'share password hash': stored!.share.split('$').at(-1)!,
    }
    expect(logs.some((l) => l.includes('injected fault'))).toBe(true)
    for (const [name, secret] of Object.entries(secrets)) {
      expect(secret.length, name).toBeGreaterThan(15)
      expect(answers.filter((a) => a.includes(secret)).length, `${name} in an answer`).toBe(0)
      expect(
        logs.filter((l) => l.includes(secret)),
        `${name} in the log`,
      ).toEqual([])
    }
  })

  it('are compared in constant time: no early exit, any length', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true)
    expect(constantTimeEqual('abc', 'abd')).toBe(false)
    expect(constantTimeEqual('abc', 'abcd')).toBe(false)
    expect(constantTimeEqual('', 'a')).toBe(false)
    expect(constantTimeEqual('é', 'e\u0301')).toBe(false)
    expect(constantTimeEqual('', '')).toBe(true)
  })

  it('are compared with constantTimeEqual everywhere in the Worker', () => {
    // A plain === or !== on a signature, token, hash or password leaks through timing where the
    // two first differ. Compared this way: only string literals and codes.
    const sources = import.meta.glob('../../src/**/*.{ts,tsx}', {
      query: '?raw',
      import: 'default',
      eager: true,
    }) as Record<string, string>
    expect(Object.keys(sources).length).toBeGreaterThan(30)
    const secretish = /sig|signature|csrf|secret|password|hash|token|digest|expected/i
    // Not secrets: the digest of bytes a client uploaded, checked against the digest it declared.
    const allowed = ['toHex(await digest.digest) === sha256']
    const offending: string[] = []
    // Each === or !== whose neighbours are not a literal, on a line about a secret.
    const literalBefore = /(['"\d]|\b(null|undefined|true|false)|\.(code|length|status|size))\s*$/
    const literalAfter = /^\s*(['"\d]|(null|undefined|true|false)\b)/
    for (const [file, text] of Object.entries(sources)) {
      text.split('\n').forEach((line, i) => {
        if (allowed.some((a) => line.includes(a))) return
        const code = line.replace(/'[^']*'|"[^"]*"|`[^`]*`/g, "''")
        if (!secretish.test(line.replace(/'[^']*'|"[^"]*"/g, ''))) return
        for (const m of code.matchAll(/[!=]==/g)) {
          const before = code.slice(0, m.index)
          const after = code.slice(m.index! + 3)
          if (literalBefore.test(before) || literalAfter.test(after)) continue
          offending.push(`${file}:${i + 1}: ${line.trim()}`)
        }
      })
    }
    expect(offending).toEqual([])
  })
})
