import { Hono } from 'hono'
import { createShare, listShares, revokeShare, revokeShares } from '../domain/shares/shares'
import type { AppEnv } from '../http/context'
import { key } from '../http/actor/steps'
import { READ, WRITE } from '../http/actor/need'
import { canvasInPath, createShareBody, shareInPath } from '../schema/requests'
import { jsonBody, params } from '../http/validate'
import { documented } from '../http/route-docs'

// Share links of one canvas: /v1/canvases/:id/shares
export const shares = new Hono<AppEnv>()

shares.post(
  '/',
  key(WRITE),
  params(canvasInPath),
  jsonBody(createShareBody, { optional: true }),
  documented({
    summary: 'Create a share link',
    description:
      'Anyone with the link sees the canvas without an account: the latest version, or a pinned ' +
      '`version`; optionally until `expires_in` (such as `24h`), for `max_views` downloads, or ' +
      'behind a `password`. `token` chooses the link’s token.',
    tag: 'Shares',
    responses: { 201: { description: 'The link.', schema: 'share' } },
    errors: ['canvas_not_found', 'version_not_found', 'share_token_taken'],
  }),
  async (c) => {
    const body = c.req.valid('json')
    return c.json(await createShare(c.var.svc, c.var.actor, c.req.valid('param').id, body), 201)
  },
)

shares.get(
  '/',
  key(READ),
  params(canvasInPath),
  documented({
    summary: 'List share links',
    tag: 'Shares',
    responses: { 200: { description: 'The canvas’s links.', schema: 'shareList' } },
    errors: ['canvas_not_found'],
  }),
  async (c) => {
    return c.json({ shares: await listShares(c.var.svc, c.var.actor, c.req.valid('param').id) })
  },
)

shares.delete(
  '/',
  key(WRITE),
  params(canvasInPath),
  documented({
    summary: 'Revoke every share link',
    tag: 'Shares',
    responses: { 200: { description: 'How many were revoked.', schema: 'revoked' } },
    errors: ['canvas_not_found'],
  }),
  async (c) => {
    const revoked = await revokeShares(c.var.svc, c.var.actor, c.req.valid('param').id)
    return c.json({ success: true, revoked })
  },
)

shares.delete(
  '/:token',
  key(WRITE),
  params(shareInPath),
  documented({
    summary: 'Revoke a share link',
    tag: 'Shares',
    responses: { 200: { description: 'Revoked.', schema: 'success' } },
    errors: ['canvas_not_found', 'share_not_found'],
  }),
  async (c) => {
    const { id, token } = c.req.valid('param')
    await revokeShare(c.var.svc, c.var.actor, id, token)
    return c.json({ success: true })
  },
)
