import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { bytesOf, call, json, newAccount, sha256 } from '../support/api'
import { pausingBindings } from '../support/faults'
import { expectIntact } from '../support/integrity'
import { sweepUntilDone } from '../support/state'

// Deterministic interleavings: a request is stopped after each of its D1 round trips and R2 calls
// in turn, the sweep runs to completion at exactly that point, then the request goes on. Whatever
// the point, no finalized file may be left without its bytes, and an accepted upload serves them.

const form = (text: string) => {
  const data = new FormData()
  data.append('file', new Blob([text]), 'again.txt')
  return data
}

/** Content the workspace had, now unreferenced and old enough for the sweep to remove. */
async function abandonedContent(key: string, text: string) {
  const created = await call('/v1/canvases', { method: 'POST', key, body: form(text) })
  expect(created.status).toBe(201)
  const { canvas_id } = await json(created)
  expect((await call(`/v1/canvases/${canvas_id}`, { method: 'DELETE', key })).status).toBe(200)
  await env.DB.prepare('UPDATE files SET touched_at = 0 WHERE sha256 = ?')
    .bind(await sha256(bytesOf(text)))
    .run()
}

/** How many D1 round trips and R2 calls the request makes when nothing interleaves. */
async function operationsOf(key: string, text: string) {
  const probe = pausingBindings(Number.MAX_SAFE_INTEGER)
  const res = await call('/v1/canvases', {
    method: 'POST',
    key,
    body: form(text),
    env: probe.bindings,
  })
  expect(res.status).toBe(201)
  return probe.count()
}

describe('a direct re-upload racing the sweep', () => {
  it('never leaves a ready file without its bytes, at any point of the upload', async () => {
    const account = await newAccount()
    const steps = await operationsOf(account.key, 'a probe of the step count')
    expect(steps).toBeGreaterThanOrEqual(4)
    for (let at = 1; at <= steps; at++) {
      const text = `re-uploaded while the sweep removes it ${at}`
      await abandonedContent(account.key, text)
      const paused = pausingBindings(at)
      const request = call('/v1/canvases', {
        method: 'POST',
        key: account.key,
        body: form(text),
        env: paused.bindings,
      })
      const where = `sweep after step ${at} (${await Promise.race([paused.paused, request.then(() => 'end')])})`
      await sweepUntilDone(Date.now())
      paused.resume()
      const res = await request
      await expectIntact(account.workspaceId, where)
      if (res.status === 201) {
        const canvas = await json(res)
        const content = await call(`/v1/canvases/${canvas.canvas_id}/content`, { key: account.key })
        const served = await call(content.headers.get('Location')!)
        expect(served.status, where).toBe(200)
        expect(await served.text(), where).toBe(text)
      } else {
        // The sweep held the content at that moment: the client is told to retry, nothing is lost.
        expect(res.status, where).toBe(409)
        expect((await json(res)).error.code, where).toBe('conflict')
      }
    }
  })
})
