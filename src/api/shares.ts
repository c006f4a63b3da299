import { Hono } from 'hono'
import { createShare, listShares, revokeShare, revokeShares } from '../domain/shares'
import { canvasIdParam, type AppEnv } from '../http/context'
import { createShareBody, shareToken } from '../http/schemas'
import { jsonBody } from '../http/validate'

// Share links of one canvas: /v1/canvases/:id/shares
export const shares = new Hono<AppEnv>()

shares.post('/', jsonBody(createShareBody, { optional: true }), async (c) => {
  const body = c.req.valid('json')
  return c.json(await createShare(c.var.svc, c.var.auth, canvasIdParam(c), body), 201)
})

shares.get('/', async (c) => {
  return c.json({ shares: await listShares(c.var.svc, c.var.auth, canvasIdParam(c)) })
})

shares.delete('/', async (c) => {
  const revoked = await revokeShares(c.var.svc, c.var.auth, canvasIdParam(c))
  return c.json({ success: true, revoked })
})

shares.delete('/:token', async (c) => {
  const token = c.req.param('token')
  // A token that cannot exist is simply not found.
  const valid = shareToken.safeParse(token).success ? token : ''
  await revokeShare(c.var.svc, c.var.auth, canvasIdParam(c), valid)
  return c.json({ success: true })
})
