import { usageTotals } from '../../src/domain/usage'
import { servicesOf, type Services } from '../../src/domain/services'
import type { Bindings } from '../../src/lib/settings'
import { recountUsage } from './usage-recount'

// A Worker that answers usage from the running totals (/totals) or by counting every row
// (/recount), for a workspace at a time, without the limits: test/node/migration.test.ts bundles
// it to ask a database before and after the migration that made the totals, in workerd's own D1.

export default {
  async fetch(request: Request, env: Bindings): Promise<Response> {
    const url = new URL(request.url)
    const now = Number(url.searchParams.get('now'))
    const svc: Services = { ...servicesOf(env), now: () => now }
    const actor = {
      userId: '',
      workspaceId: url.searchParams.get('workspace') ?? '',
      role: 'owner' as const,
      person: { name: 'usage', email: 'usage@example.com' },
      scopes: ['read' as const, 'write' as const],
      by: { kind: 'key' as const, name: 'usage' },
    }
    if (url.pathname === '/recount') return Response.json(await recountUsage(svc, actor))
    return Response.json(await usageTotals(svc, actor.workspaceId))
  },
}
