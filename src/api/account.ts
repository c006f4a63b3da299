import { Hono } from 'hono'
import { workspaceUsage } from '../domain/usage'
import { RENDERERS } from '../render/registry'
import type { AppEnv } from '../http/context'

export const account = new Hono<AppEnv>()

account.get('/me', (c) => {
  const auth = c.var.auth
  return c.json({
    user: { user_id: auth.userId, email: auth.email },
    workspace: { workspace_id: auth.workspaceId, name: auth.workspaceName },
    key: { key_id: auth.keyId, name: auth.keyName, scopes: auth.scopes },
  })
})

account.get('/usage', async (c) => {
  return c.json(await workspaceUsage(c.var.svc, c.var.auth))
})

account.get('/renderers', (c) => {
  return c.json({ renderers: RENDERERS })
})
