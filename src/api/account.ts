import { Hono } from 'hono'
import { keyOwner } from '../domain/keys'
import { workspaceUsage } from '../domain/usage'
import { RENDERERS } from '../render/registry'
import type { AppEnv } from '../http/context'
import { keyAccess } from '../http/access'
import { documented } from '../http/route-docs'
import * as shapes from '../schema/responses'

export const account = new Hono<AppEnv>()

account.get(
  '/me',
  keyAccess,
  documented({
    summary: 'Who am I',
    description: 'The key’s user, workspace and scopes.',
    tag: 'Account',
    auth: 'key',
    responses: { 200: { description: 'The key’s owner.', schema: shapes.me } },
  }),
  async (c) => {
    const auth = c.var.auth
    const owner = await keyOwner(c.var.svc, auth)
    return c.json({
      user: { user_id: auth.userId, email: owner.email },
      workspace: { workspace_id: auth.workspaceId, name: owner.workspaceName, role: auth.role },
      key: { key_id: auth.keyId, name: auth.keyName, scopes: auth.scopes },
    })
  },
)

account.get(
  '/usage',
  keyAccess,
  documented({
    summary: 'Usage',
    description: 'What the workspace holds, and the limits it works within.',
    tag: 'Account',
    auth: 'key',
    responses: { 200: { description: 'Counts and bytes.', schema: shapes.usage } },
  }),
  async (c) => c.json(await workspaceUsage(c.var.svc, c.var.auth)),
)

account.get(
  '/renderers',
  keyAccess,
  documented({
    summary: 'Renderers',
    description: 'How each kind of file is shown, and which extensions choose each by default.',
    tag: 'Account',
    auth: 'key',
    responses: { 200: { description: 'Every renderer.', schema: shapes.rendererList } },
  }),
  (c) => c.json({ renderers: RENDERERS }),
)
