import { and, desc, eq, getTableColumns, lt, lte, or, sql } from 'drizzle-orm'
import type { AuditAction } from '../../lib/audit'
import { deleteSome } from '../../storage/db'
import { auditEvents, users } from '../../storage/schema'
import { auditCursor, readAuditCursor } from '../cursors'
import type { Services } from '../services'
import type { Actor } from '../actor'
import { presentAudit } from './record'

// Reading the audit log (docs/teams.md#the-audit-log): a workspace's admins read its events newest
// first. No statement of the service changes an event; the sweep removes those past retention.

export const MAX_AUDIT_PAGE = 100
export const DEFAULT_AUDIT_PAGE = 50

export type AuditQuery = {
  limit?: number
  cursor?: string
  action?: AuditAction
  /**
   * A person (by user id or email: everything they did, by any credential), or a key's or an
   * app's name. An email never matches a key named like one: it names the person.
   */
  actor?: string
  /** A target's id. */
  target?: string
}

/**
 * A page of the workspace's events, newest first. A cursor enters the workspace's index where
 * the last page ended, so a page costs the same at any depth; a filter by target walks the
 * target's index instead.
 */
export async function listAudit(svc: Services, actor: Actor, query: AuditQuery) {
  const limit = Math.min(query.limit ?? DEFAULT_AUDIT_PAGE, MAX_AUDIT_PAGE)
  const after = query.cursor ? readAuditCursor(query.cursor) : null
  // The rowid ends every entry of the workspace's index: the order events were written in.
  const rowid = sql<number>`${auditEvents}.rowid`
  const rows = await svc.db
    .select({ ...getTableColumns(auditEvents), row: rowid })
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.workspaceId, actor.workspaceId),
        after
          ? or(
              lt(auditEvents.at, after.at),
              and(eq(auditEvents.at, after.at), lt(rowid, after.row)),
            )
          : undefined,
        query.action ? eq(auditEvents.action, query.action) : undefined,
        query.actor ? byActor(query.actor) : undefined,
        query.target ? eq(auditEvents.targetId, query.target) : undefined,
      ),
    )
    .orderBy(desc(auditEvents.at), desc(rowid))
    .limit(limit + 1)
  const page = rows.slice(0, limit)
  const last = page[page.length - 1]
  return {
    events: page.map(presentAudit),
    next_cursor: rows.length > limit && last ? auditCursor(last.at, last.row) : null,
  }
}

/** The events of a person (by id or email, through any credential), or of a key or app by name. */
function byActor(actor: string) {
  if (actor.includes('@')) {
    const email = actor.trim().toLowerCase()
    const person = sql`(SELECT ${users.userId} FROM ${users} WHERE ${users.email} = ${email})`
    return or(eq(auditEvents.actorEmail, email), eq(auditEvents.actorUserId, person))
  }
  return or(eq(auditEvents.actorUserId, actor), eq(auditEvents.actorName, actor))
}

const DAY = 86400_000

/** The sweep's step: events older than the retention, oldest first, a batch at a time. */
export function sweepAudit(svc: Services, now: number, limit: number): Promise<number> {
  const old = lte(auditEvents.at, now - svc.settings.auditRetentionDays * DAY)
  return deleteSome(svc.db, auditEvents, auditEvents.eventId, old, limit, auditEvents.at)
}
