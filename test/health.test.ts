import { SELF } from 'cloudflare:test'
import { expect, it } from 'vitest'

it('answers ok when D1 is reachable', async () => {
  const res = await SELF.fetch('http://canvas.test/health')
  expect(res.status).toBe(200)
  expect(await res.json()).toEqual({ ok: true })
})
