import { Hono } from 'hono'
import { keyOwner } from '../domain/keys'
import { workspaceUsage } from '../domain/usage'
import { RENDERERS } from '../render/registry'
import type { AppEnv } from '../http/context'
import { key } from '../http/actor/steps'
import { READ } from '../http/actor/need'
import { documented } from '../http/route-docs'

export const account = new Hono<AppEnv>()

account.get(
  '/me',
  key(READ),
  documented({
    summary: 'Who am I',
    description: 'The key’s user, workspace and scopes.',
    tag: 'Account',
    responses: { 200: { description: 'The key’s owner.', schema: 'me' } },
  }),
  async (c) => {
    const { actor } = c.var
    const owner = await keyOwner(c.var.svc, actor)
    return c.json({
      user: { user_id: actor.userId, email: owner.email },
      workspace: { workspace_id: actor.workspaceId, name: owner.workspaceName, role: actor.role },
      key: { key_id: actor.by.keyId!, name: actor.by.name, scopes: actor.scopes },
    })
  },
)

account.get(
  '/usage',
  key(READ),
  documented({
    summary: 'Usage',
    description: 'What the workspace holds, and the limits it works within.',
    tag: 'Account',
    responses: { 200: { description: 'Counts and bytes.', schema: 'usage' } },
  }),
  async (c) => c.json(await workspaceUsage(c.var.svc, c.var.actor)),
)

account.get(
  '/renderers',
  key(READ),
  documented({
    summary: 'Renderers',
    description: 'How each kind of file is shown, and which extensions choose each by default.',
    tag: 'Account',
    responses: { 200: { description: 'Every renderer.', schema: 'rendererList' } },
  }),
  (c) => c.json({ renderers: RENDERERS }),
)
