import { Hono } from 'hono'
import { listAudit } from '../domain/audit/log'
import type { AppEnv } from '../http/context'
import { key } from '../http/actor/steps'
import { ADMIN } from '../http/actor/need'
import { documented } from '../http/route-docs'
import { query } from '../http/validate'
import { auditQuery } from '../schema/workspace-requests'

// /v1/audit (docs/teams.md#the-audit-log): the workspace's changes, newest first, for its admins.
export const audit = new Hono<AppEnv>()

audit.get(
  '/',
  key(ADMIN),
  query(auditQuery),
  documented({
    summary: 'The audit log',
    description:
      'Every change in the key’s workspace, newest first: who (a member, a key, an agent), what ' +
      '(`action`), on what (`target`), and the details, never a secret. Admins. Paged by ' +
      '`cursor` at the same cost at any depth; filter by `action`, `actor` (a user id or a name) ' +
      'or `target` (an id).',
    tag: 'Workspaces',
    responses: { 200: { description: 'A page of events.', schema: 'auditList' } },
    errors: ['forbidden'],
  }),
  async (c) => c.json(await listAudit(c.var.svc, c.var.actor, c.req.valid('query'))),
)
