import {
  and,
  asc,
  eq,
  exists,
  gt,
  isNotNull,
  isNull,
  lte,
  notExists,
  or,
  sql,
  type AnyColumn,
} from 'drizzle-orm'
import { AppError } from '../../lib/errors'
import { newId } from '../../lib/crypto'
import type { Role } from '../../schema/requests'
import { deleteSome, one, value } from '../../storage/db'
import {
  apiKeys,
  canvases,
  files,
  invites,
  members,
  oauthGrants,
  sessions,
  webhooks,
  workspaces,
} from '../../storage/schema'
import { iso, type Services } from '../services'
import { type Actor } from '../actor'
import { announceAudit, auditActorOf, auditStatement, recordOf } from '../audit/record'
import { joinInvite } from './invites'
import { isMember, personalWorkspace, workspaceNotFound } from './members'
import { durationText, presentSettings } from './settings'
import { reconnectReaders } from '../reviews/gate'

// Workspaces a person belongs to: their personal one (made at signup) and any they made or joined.

export const MAX_WORKSPACES_PER_PERSON = 100

export type Workspace = {
  workspace_id: string
  name: string
  role: Role
  personal: boolean
  created_at: string
}

const FIELDS = {
  workspaceId: workspaces.workspaceId,
  name: workspaces.name,
  role: members.role,
  personal: workspaces.personal,
  createdAt: workspaces.createdAt,
}

const present = (row: {
  workspaceId: string
  name: string
  role: Role
  personal: boolean
  createdAt: number
}): Workspace => ({
  workspace_id: row.workspaceId,
  name: row.name,
  role: row.role,
  personal: row.personal,
  created_at: iso(row.createdAt),
})

/** The workspaces of the person `userId`, their personal one first, then by creation. */
export async function listWorkspaces(svc: Services, userId: string): Promise<Workspace[]> {
  const rows = await svc.db
    .select(FIELDS)
    .from(members)
    .innerJoin(workspaces, eq(workspaces.workspaceId, members.workspaceId))
    .where(eq(members.userId, userId))
    .orderBy(
      sql`${workspaces.personal} DESC`,
      asc(workspaces.createdAt),
      asc(workspaces.workspaceId),
    )
    .limit(MAX_WORKSPACES_PER_PERSON + 1)
  return rows.map(present)
}

/**
 * A new workspace with its maker as owner, in one batch whose inserts hold only while the person
 * belongs to fewer than MAX_WORKSPACES_PER_PERSON: two made at once cannot pass it together.
 * Its log begins with its making (`workspace.created`).
 */
export async function createWorkspace(svc: Services, actor: Actor, name: string) {
  const userId = actor.userId
  const db = svc.db
  const workspaceId = newId()
  const now = svc.now()
  const room = sql`${db.$count(members, eq(members.userId, userId))} < ${MAX_WORKSPACES_PER_PERSON}`
  const [made, , recorded] = await db.batch([
    db
      .insert(workspaces)
      .select(
        sql`SELECT ${workspaceId}, ${name}, ${userId}, ${now}, 0, NULL, NULL, NULL, 0 WHERE ${room}`,
      )
      // Not meta.changes: the row's trigger (its usage totals) counts among those.
      .returning({ workspaceId: workspaces.workspaceId }),
    db.insert(members).select((qb) =>
      qb
        .select({
          workspaceId: workspaces.workspaceId,
          userId: value(members.userId, userId),
          role: value(members.role, 'owner'),
          joinedAt: value(members.joinedAt, now),
        })
        .from(workspaces)
        .where(eq(workspaces.workspaceId, workspaceId)),
    ),
    auditStatement(svc, workspaceId, auditActorOf(actor), {
      action: 'workspace.created',
      target: { type: 'workspace', id: workspaceId },
      details: { name },
    }),
  ])
  if (made.length !== 1) {
    throw new AppError(
      'conflict',
      `a person belongs to at most ${MAX_WORKSPACES_PER_PERSON} workspaces: leave one first`,
    )
  }
  announceAudit(svc, recorded)
  return present({ workspaceId, name, role: 'owner', personal: false, createdAt: now })
}

export type WorkspaceChange = {
  name?: string
  /** Seconds a new canvas lives; null: kept. */
  defaultExpiresIn?: number | null
  /** Bytes it may store; null: the deployment's WORKSPACE_QUOTA_BYTES. */
  quotaBytes?: number | null
  /** Links and public pages show approved versions only. */
  requireReview?: boolean
}

/**
 * Renames the actor's workspace, or changes its settings (its admins, as their route needs).
 * Answers it with the settings that now apply.
 */
export async function updateWorkspace(svc: Services, member: Actor, change: WorkspaceChange) {
  const workspaceId = member.workspaceId
  const target = { type: 'workspace', id: workspaceId } as const
  const settings = {
    ...(change.defaultExpiresIn !== undefined && {
      default_expires_in:
        change.defaultExpiresIn === null ? null : durationText(change.defaultExpiresIn),
    }),
    ...(change.quotaBytes !== undefined && { quota_bytes: change.quotaBytes }),
    ...(change.requireReview !== undefined && { require_review: change.requireReview }),
  }
  const [[before], [row], ...recorded] = await svc.db.batch([
    // What it required before: a change of it reconnects the readers' pages (below).
    svc.db
      .select({ requireReview: workspaces.requireReview })
      .from(workspaces)
      .where(eq(workspaces.workspaceId, workspaceId)),
    svc.db
      .update(workspaces)
      .set({
        name: change.name,
        // 0 on the row: kept (domain/workspaces/settings).
        defaultTtl: change.defaultExpiresIn === null ? 0 : change.defaultExpiresIn,
        quotaBytes: change.quotaBytes,
        requireReview: change.requireReview,
      })
      .where(and(eq(workspaces.workspaceId, workspaceId), isNull(workspaces.deletedAt)))
      .returning(UPDATED),
    ...(change.name === undefined
      ? []
      : [
          recordOf(svc, member, {
            action: 'workspace.renamed',
            target,
            details: { name: change.name },
          }),
        ]),
    ...(Object.keys(settings).length === 0
      ? []
      : [
          recordOf(svc, member, {
            action: 'workspace.settings_changed',
            target,
            details: settings,
          }),
        ]),
  ])
  if (!row) throw workspaceNotFound()
  announceAudit(svc, ...recorded)
  if (before && before.requireReview !== row.requireReview) {
    await reconnectReaders(svc, workspaceId)
  }
  return {
    ...present({ ...row, role: member.role }),
    ...presentSettings(svc, row),
    require_review: row.requireReview,
  }
}

const UPDATED = {
  workspaceId: workspaces.workspaceId,
  name: workspaces.name,
  personal: workspaces.personal,
  createdAt: workspaces.createdAt,
  defaultTtl: workspaces.defaultTtl,
  quotaBytes: workspaces.quotaBytes,
  requireReview: workspaces.requireReview,
}

/**
 * Deletes a workspace (its owners; never a personal one): in one batch its members, keys, apps,
 * webhooks and invites go, its sessions go on in their people's personal workspaces, and its
 * canvases expire as a deleted canvas does; the sweep removes them, their files, and at last the
 * workspace's row with its audit log.
 */
export async function deleteWorkspace(svc: Services, member: Actor) {
  const workspaceId = member.workspaceId
  const db = svc.db
  const now = svc.now()
  const gone = exists(
    db
      .select({ one: sql`1` })
      .from(workspaces)
      .where(and(eq(workspaces.workspaceId, workspaceId), eq(workspaces.deletedAt, now))),
  )
  const inIt = <T extends { workspaceId: AnyColumn }>(table: T) =>
    and(eq(table.workspaceId, workspaceId), gone)
  const [deleted, expired, , , , , , members_] = await db.batch([
    db
      .update(workspaces)
      .set({ deletedAt: now })
      .where(
        and(
          eq(workspaces.workspaceId, workspaceId),
          eq(workspaces.personal, false),
          isNull(workspaces.deletedAt),
        ),
      )
      .returning({ workspaceId: workspaces.workspaceId }),
    db
      .update(canvases)
      .set({ expiresAt: now })
      .where(and(inIt(canvases), or(isNull(canvases.expiresAt), gt(canvases.expiresAt, now))))
      .returning({ canvasId: canvases.canvasId }),
    db
      .update(apiKeys)
      .set({ revokedAt: now })
      .where(and(inIt(apiKeys), isNull(apiKeys.revokedAt))),
    db
      .update(oauthGrants)
      .set({ revokedAt: now, expiresAt: now })
      .where(and(inIt(oauthGrants), isNull(oauthGrants.revokedAt))),
    db.delete(webhooks).where(inIt(webhooks)),
    db
      .update(invites)
      .set({ revokedAt: now, expiresAt: now })
      .where(and(inIt(invites), gt(invites.expiresAt, now))),
    db
      .update(sessions)
      .set({
        workspaceId: sql`(${personalWorkspace(db, sessions.userId)})`,
        // Its other members are told on their next page; who deleted it knows.
        leftWorkspace: sql`CASE WHEN ${sessions.userId} = ${member.userId} THEN NULL ELSE (${db.select({ name: workspaces.name }).from(workspaces).where(eq(workspaces.workspaceId, workspaceId))}) END`,
      })
      .where(inIt(sessions)),
    db.delete(members).where(inIt(members)).returning({ userId: members.userId }),
  ])
  if (deleted.length === 0) {
    const row = await db
      .select({ personal: workspaces.personal })
      .from(workspaces)
      .where(eq(workspaces.workspaceId, workspaceId))
      .get()
    if (row?.personal) {
      throw new AppError('conflict', 'a personal workspace cannot be deleted; it is yours alone')
    }
    throw workspaceNotFound()
  }
  for (const { canvasId } of expired) svc.live?.(canvasId, { type: 'gone', reason: 'deleted' })
  // Every member's waits there end too, before the answer.
  await Promise.all(members_.map(({ userId }) => svc.access?.end(userId, { workspaceId })))
  return { workspace_id: workspaceId, deleted: true, canvases: expired.length }
}

/**
 * The rows of deleted workspaces that nothing else holds any more (the sweep removed their
 * canvases and files): the sweep's step, up to `limit`. Their audit log and totals go with them.
 */
export function sweepWorkspaces(svc: Services, now: number, limit: number) {
  const db = svc.db
  const held = (table: typeof canvases | typeof files) =>
    db.select(one).from(table).where(eq(table.workspaceId, workspaces.workspaceId))
  const done = and(
    isNotNull(workspaces.deletedAt),
    lte(workspaces.deletedAt, now),
    notExists(held(canvases)),
    notExists(held(files)),
  )
  return deleteSome(db, workspaces, workspaces.workspaceId, done, limit)
}

/** Makes `workspaceId` the one a web session acts in: it must be one of the person's. */
export async function switchWorkspace(
  svc: Services,
  sessionHash: string,
  userId: string,
  workspaceId: string,
) {
  const db = svc.db
  const [, row] = await db.batch([
    db
      .update(sessions)
      .set({ workspaceId })
      .where(and(eq(sessions.sessionHash, sessionHash), isMember(db, workspaceId, userId))),
    db
      .select(FIELDS)
      .from(members)
      .innerJoin(workspaces, eq(workspaces.workspaceId, members.workspaceId))
      .where(and(eq(members.workspaceId, workspaceId), eq(members.userId, userId))),
  ])
  if (row.length === 0) throw workspaceNotFound()
  return present(row[0])
}

/** A signed-in person uses an invite: they join its workspace, and their session goes there. */
export async function joinWithSession(
  svc: Services,
  session: { sessionHash: string; user: { user_id: string; email: string } },
  token: string,
) {
  const person = { userId: session.user.user_id, email: session.user.email }
  const used = await joinInvite(svc, token, person)
  return switchWorkspace(svc, session.sessionHash, person.userId, used.workspaceId)
}
