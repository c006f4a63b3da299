import { Hono } from 'hono'
import { page } from '../../http/actor/steps'
import { MANAGING } from '../needs'
import type { SignedInEnv } from '../../http/context'
import { parse } from '../../http/validate'
import { listAudit } from '../../domain/audit/log'
import { auditQuery } from '../../schema/workspace-requests'
import { csrfToken, viewerOf } from '../session'
import { ActivityPage } from './activity-page'

// /settings/activity: the audit log of the session's workspace (its admins'), with the filters
// of GET /v1/audit as the page's query. A member who is not an admin gets the API's 403 page.
export const activity = new Hono<SignedInEnv>()

activity.get('/', page(MANAGING), async (c) => {
  const { svc, session } = c.var
  // The form sends its empty fields too: an empty filter is no filter.
  const given = [...new URL(c.req.url).searchParams].filter(([, value]) => value !== '')
  const query = parse(auditQuery, Object.fromEntries(given))
  const page = await listAudit(svc, c.var.actor, query)
  return c.html(
    <ActivityPage
      user={viewerOf(session)}
      workspace={session.workspace}
      csrf={await csrfToken(svc, session)}
      events={page.events}
      filters={{ action: query.action, actor: query.actor, target: query.target }}
      older={page.next_cursor}
    />,
  )
})
