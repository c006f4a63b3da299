import { and, eq, notExists, sql, type SQL, type SQLWrapper } from 'drizzle-orm'
import type { AuditAction, AuditActorKind } from '../../lib/audit'
import { newId } from '../../lib/crypto'
import { auditEvents, members, oauthGrants, users } from '../../storage/schema'
import { iso, type Services } from '../services'
import { type Actor, type Person } from '../actor'
import { personName } from '../person-name'

// How a change is recorded in the audit log (docs/teams.md#the-audit-log): its event is one more
// statement of the change's own D1 batch, so that the change and its record are kept or lost
// together, and the write costs no round trip more. The event follows its change: it is written
// only when the statement just before it changed a row (`changes()`, inside the batch's one
// transaction), unless the change is one that always happens.

/**
 * Who made a change, as an event names them: how they came (a member's email, a key's or an app's
 * name), and the person behind it.
 */
export type AuditActor = {
  kind: AuditActorKind
  userId: string | null
  name: string
  person?: Person
}

/** The sweep, and whatever else the deployment does by itself. */
export const SYSTEM: AuditActor = { kind: 'system', userId: null, name: 'Canvas' }

export const auditActorOf = (actor: Actor): AuditActor => ({
  kind: actor.by.kind,
  userId: actor.userId,
  name: actor.by.name,
  person: actor.person,
})

type Detail = string | number | boolean | null | readonly string[]

export type AuditEntry = {
  action: AuditAction
  target: {
    type:
      | 'canvas'
      | 'share'
      | 'comment'
      | 'key'
      | 'app'
      | 'webhook'
      | 'member'
      | 'invite'
      | 'workspace'
      | 'person'
    id: string
  }
  /** What changed, never a secret: names, roles, fields. A value in SQL is read as the event is written. */
  details?: Record<string, Detail | SQL>
}

export type AuditRow = typeof auditEvents.$inferSelect

/**
 * When an event is written: after a change of a row by the statement before it, and when given,
 * a condition holds too.
 */
export type Recorded = 'changed' | SQL

/**
 * The statement that records `entry` in `workspaceId`, made by `who`, for the batch of its change.
 * It returns the event it wrote (none when its change changed nothing), for `announceAudit`.
 */
export function auditStatement(
  svc: Services,
  workspaceId: string | SQL<string>,
  who: AuditActor,
  entry: AuditEntry,
  recorded: Recorded = 'changed',
) {
  return auditInsert(svc, who, entry, { workspaceId, where: whenRecorded(recorded) }).returning()
}

/**
 * The statement that records `entry` in every workspace `userId` belongs to (their sign-ins: a
 * person's activity concerns every team they are in); with `recorded`, only as auditStatement's.
 */
export function auditEveryWorkspace(
  svc: Services,
  userId: string,
  who: AuditActor,
  entry: AuditEntry,
  recorded?: Recorded,
) {
  const person = sql`${members.userId} = ${userId}`
  const where = recorded ? sql`${person} AND ${whenRecorded(recorded)}` : person
  return auditInsert(svc, who, entry, {
    workspaceId: members.workspaceId,
    from: members,
    where,
  }).returning()
}

/**
 * The insert of `entry`'s event, one for each row that `where` selects (of `from`, or none). A
 * single event takes an id of `newId`'s; several, a random one each of the same strength.
 */
function auditInsert(
  svc: Services,
  who: AuditActor,
  entry: AuditEntry,
  rows: { workspaceId: string | SQLWrapper; where: SQL; from?: SQLWrapper },
) {
  const id = rows.from ? sql`lower(hex(randomblob(16)))` : sql`${newId()}`
  return svc.db.insert(auditEvents).select(
    sql`SELECT ${id}, ${rows.workspaceId}, ${svc.now()}, ${who.kind}, ${who.userId}, ${who.name},
      ${entry.action}, ${entry.target.type}, ${entry.target.id}, ${detailsOf(entry.details)},
      ${who.person?.name ?? null}, ${who.person?.email ?? null}
      ${rows.from ? sql`FROM ${rows.from}` : sql``} WHERE ${rows.where}`,
  )
}

const whenRecorded = (recorded: Recorded) =>
  recorded === 'changed' ? sql`changes() > 0` : sql`changes() > 0 AND ${recorded}`

/**
 * The events of grants that ended, one per grant `where` selects (in the batch right after the
 * statement that ended them): `oauth.disconnected`, by `who`, or by the app itself when the app
 * ended it (its own token revoked) or the service did (a secret used twice).
 */
export function grantsEnded(svc: Services, where: SQL, reason: string, who?: AuditActor) {
  const g = oauthGrants
  const u = users
  const actor = who
    ? sql`${who.kind}, ${who.userId}, ${who.name}`
    : sql`'agent', ${g.userId}, ${g.clientName}`
  const person = who?.person
    ? sql`${who.person.name}, ${who.person.email}`
    : sql`${personName}, ${u.email}`
  return svc.db
    .insert(auditEvents)
    .select(
      sql`SELECT lower(hex(randomblob(16))), ${g.workspaceId}, ${svc.now()}, ${actor},
      'oauth.disconnected', 'app', ${g.grantId}, json_object('app', ${g.clientName}, 'reason', ${reason}),
      ${person}
      FROM ${g} JOIN ${u} ON ${u.userId} = ${g.userId} WHERE ${where}`,
    )
    .returning()
}

/** `auditStatement` for the change an actor makes in their workspace. */
export const recordOf = (svc: Services, actor: Actor, entry: AuditEntry, recorded?: Recorded) =>
  auditStatement(svc, actor.workspaceId, auditActorOf(actor), entry, recorded)

/** The details as a JSON object: plain values as one parameter, SQL values merged in by SQLite. */
function detailsOf(details: AuditEntry['details'] = {}): SQL {
  const plain: Record<string, Detail> = {}
  const computed: SQL[] = []
  for (const [name, v] of Object.entries(details)) {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      computed.push(sql`${name}, ${v as SQL}`)
    } else {
      plain[name] = v as Detail
    }
  }
  const json = JSON.stringify(plain)
  if (computed.length === 0) return sql`${json}`
  return sql`json_patch(${json}, json_object(${sql.join(computed, sql`, `)}))`
}

/** An event as the API shows it. */
export const presentAudit = (row: AuditRow) => ({
  event_id: row.eventId,
  at: iso(row.at),
  actor: {
    kind: row.actorKind,
    ...(row.actorUserId !== null && { user_id: row.actorUserId }),
    name: row.actorName,
    ...(row.actorUserId !== null &&
      row.actorEmail !== null && {
        person: {
          user_id: row.actorUserId,
          name: row.actorPersonName ?? row.actorEmail,
          email: row.actorEmail,
        },
      }),
  },
  action: row.action as AuditAction,
  target: { type: row.targetType, id: row.targetId },
  details: JSON.parse(row.details) as Record<string, unknown>,
})

export type AuditEvent = ReturnType<typeof presentAudit>

/**
 * Tells the workspace's webhooks (`audit.event`) of the events a batch wrote, after it succeeded.
 * Each result is what an `auditStatement` of the batch returned.
 */
export function announceAudit(svc: Services, ...results: AuditRow[][]) {
  for (const row of results.flat()) {
    const data = presentAudit(row)
    const actor = { kind: data.actor.kind, name: data.actor.name }
    svc.events?.({ type: 'audit.event', workspaceId: row.workspaceId, data, actor })
  }
}

/**
 * The sweep's record that a canvas expired, for the batch that removes it, right after the
 * statement that removed it (written only when it did): unless its expiry was its deletion
 * (`deleted`), which was recorded when it was asked for.
 */
export function expiryStatement(
  svc: Services,
  canvas: { canvasId: string; workspaceId: string; title: string; deleted: boolean },
) {
  // Nothing listens to the sweep's events as they happen: written without an answer, which costs
  // reading the row written (BENCHMARKS.md).
  const entry = {
    action: 'canvas.expired',
    target: { type: 'canvas', id: canvas.canvasId },
    details: { title: canvas.title },
  } as const
  // A statement all the same, writing nothing: the batch keeps one after each canvas's removal.
  const where = canvas.deleted ? sql`0` : whenRecorded('changed')
  return auditInsert(svc, SYSTEM, entry, { workspaceId: canvas.workspaceId, where })
}
